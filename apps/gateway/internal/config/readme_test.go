package config

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
)

// apps/gateway/README.md's settings table lists every flag with the environment
// variable its usage names and its default, so the operators' page cannot drift
// from the code.
func TestReadmeListsEverySetting(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // flag → its table row
	for _, line := range strings.Split(string(raw), "\n") {
		if m := regexp.MustCompile("^\\| `-([a-z-]+)` \\|").FindStringSubmatch(line); m != nil {
			rows[m[1]] = line
		}
	}
	cfg := Defaults()
	fs, _ := flagSet(&cfg)
	envOf := regexp.MustCompile(`\(env ([A-Z_]+)\)`)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		row, ok := rows[f.Name]
		if !ok {
			t.Errorf("README has no row for -%s", f.Name)
			return
		}
		delete(rows, f.Name)
		if m := envOf.FindStringSubmatch(f.Usage); m == nil || !strings.Contains(row, "`"+m[1]+"`") {
			t.Errorf("-%s: usage %q names no env variable the README row has: %s", f.Name, f.Usage, row)
		}
		cells := strings.Split(row, "|")
		def := strings.TrimSpace(cells[3])
		want := "`" + f.DefValue + "`"
		if f.DefValue == "" {
			want = "off"
		}
		if def != want {
			t.Errorf("-%s: README default %s, code default %s", f.Name, def, want)
		}
	})
	for name := range rows {
		t.Errorf("README lists -%s, which the gateway does not have", name)
	}
	if n < 10 {
		t.Fatalf("only %d flags seen", n)
	}
}
