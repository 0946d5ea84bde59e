// iouring-probe: what one write(2) per socket costs the sender on this
// machine's loopback, against the same sends submitted in batches through
// io_uring (issue 19: "batching the system calls of one burst across
// sockets"). Not part of the test suite; figures go to docs/benchmarks.md.
//
// The gateway writes a message's frame to each subscriber's socket with one
// non-blocking writev(2) (apps/gateway/internal/edge/wswrite.go). This probe
// does the same in bursts: every -pause, one frame of -size bytes to each of
// -conns sockets, whose reader is a child process draining them with epoll
// (the clients). Modes, measured in alternating blocks so the machine's
// drift hits both alike:
//   writev   one writev(2) per socket, as the gateway does today;
//   uring    per burst, one IORING_OP_SEND (MSG_DONTWAIT) per socket,
//            submitted -batch at a time with io_uring_submit_and_wait;
//   fixed    the same with the sockets registered as fixed files (no file
//            lookup per send).
// For each block it prints the sender's CPU (utime + stime, which on
// loopback includes the receiver's TCP work run in the sender's context) per
// send, and sends that did not complete at once (EAGAIN or short).
//
// Build: gcc -O2 -o /tmp/iouring-probe bench/iouring-probe/probe.c -luring
// (Debian: apt-get install liburing-dev)
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum mode { MODE_WRITEV, MODE_URING, MODE_FIXED };
static const char *mode_name[] = {"writev", "uring", "fixed"};

static int conns = 200, bursts = 400, size = 650, batch = 64, blocks = 6;
static int pause_us = 5000;

static void die(const char *what) {
	perror(what);
	exit(1);
}

static double cpu_seconds(void) {
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

// reader is the clients: it accepts every connection and drains them until
// the sender closes them all.
static void reader(int lfd) {
	int ep = epoll_create1(0);
	for (int i = 0; i < conns; i++) {
		int fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
		epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	}
	static char buf[65536];
	struct epoll_event evs[256];
	int open = conns;
	while (open > 0) {
		int n = epoll_wait(ep, evs, 256, -1);
		for (int i = 0; i < n; i++) {
			ssize_t r = read(evs[i].data.fd, buf, sizeof buf);
			if (r <= 0) {
				close(evs[i].data.fd);
				open--;
			}
		}
	}
	exit(0);
}

int main(int argc, char **argv) {
	for (int i = 1; i + 1 < argc; i += 2) {
		int v = atoi(argv[i + 1]);
		if (!strcmp(argv[i], "-conns")) conns = v;
		else if (!strcmp(argv[i], "-bursts")) bursts = v;
		else if (!strcmp(argv[i], "-size")) size = v;
		else if (!strcmp(argv[i], "-batch")) batch = v;
		else if (!strcmp(argv[i], "-blocks")) blocks = v;
		else if (!strcmp(argv[i], "-pause")) pause_us = v;
		else {
			fprintf(stderr, "unknown flag %s (flags: -conns -bursts -size -batch -blocks -pause)\n", argv[i]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) || listen(lfd, 4096))
		die("listen");
	socklen_t alen = sizeof addr;
	getsockname(lfd, (struct sockaddr *)&addr, &alen);
	pid_t child = fork();
	if (child == 0)
		reader(lfd);
	int *fds = calloc(conns, sizeof(int));
	for (int i = 0; i < conns; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		if (connect(fds[i], (struct sockaddr *)&addr, sizeof addr) && errno != EINPROGRESS)
			die("connect");
		int one = 1;
		setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	}
	usleep(200000); // every connection accepted and established

	struct io_uring ring;
	if (io_uring_queue_init(4096, &ring, 0))
		die("io_uring_queue_init");
	if (io_uring_register_files(&ring, fds, conns))
		die("io_uring_register_files");
	char *frame = malloc(size);
	memset(frame, 'x', size);

	printf("conns %d, %d-byte frames, bursts of one frame per socket every %d us, %d bursts per block, uring batch %d\n",
	       conns, size, pause_us, bursts, batch);
	double total[3] = {0};
	long sends[3] = {0};
	for (int b = 0; b < blocks * 3; b++) {
		enum mode m = (enum mode)(b % 3);
		long incomplete = 0;
		double c0 = cpu_seconds();
		for (int k = 0; k < bursts; k++) {
			if (m == MODE_WRITEV) {
				for (int i = 0; i < conns; i++) {
					struct iovec iov = {frame, size};
					ssize_t n = writev(fds[i], &iov, 1);
					if (n != size)
						incomplete++;
				}
			} else {
				for (int i = 0; i < conns; i += batch) {
					int n = conns - i < batch ? conns - i : batch;
					for (int j = 0; j < n; j++) {
						struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
						if (m == MODE_FIXED) {
							io_uring_prep_send(sqe, i + j, frame, size, MSG_DONTWAIT);
							sqe->flags |= IOSQE_FIXED_FILE;
						} else {
							io_uring_prep_send(sqe, fds[i + j], frame, size, MSG_DONTWAIT);
						}
					}
					io_uring_submit_and_wait(&ring, n);
					struct io_uring_cqe *cqe;
					unsigned head, seen = 0;
					io_uring_for_each_cqe(&ring, head, cqe) {
						if (cqe->res != size)
							incomplete++;
						seen++;
					}
					io_uring_cq_advance(&ring, seen);
				}
			}
			usleep(pause_us);
		}
		double cpu = cpu_seconds() - c0;
		long n = (long)bursts * conns;
		total[m] += cpu;
		sends[m] += n;
		printf("block %2d %-6s %7.3f us CPU per send, %ld incomplete of %ld\n", b, mode_name[m], cpu / n * 1e6, incomplete, n);
	}
	for (int m = 0; m < 3; m++)
		printf("all    %-6s %7.3f us CPU per send\n", mode_name[m], total[m] / sends[m] * 1e6);
	// The ring holds references to the registered sockets: release it first,
	// or closing them sends no end of stream and the reader never ends.
	io_uring_queue_exit(&ring);
	for (int i = 0; i < conns; i++)
		close(fds[i]);
	waitpid(child, NULL, 0);
	return 0;
}
