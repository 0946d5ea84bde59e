/**
 * A minimal typed event emitter, the same in browsers and Node (no dependency on
 * Node's EventEmitter). Unlike Node's, an "error" nobody listens to is not thrown:
 * errors that matter also reject the promise of the operation that caused them.
 */
export type Listener<T> = (payload: T) => void;

export class Emitter<Events extends object> {
  private listeners = new Map<keyof Events, Set<Listener<never>>>();
  /** Called with whatever a listener throws, so one bad listener cannot break delivery. */
  protected onListenerError: (err: unknown) => void = (err) => {
    queueMicrotask(() => {
      throw err;
    });
  };

  /** on adds a listener and returns a function that removes it. */
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as Listener<never>);
    return () => this.off(event, listener);
  }

  /** once adds a listener that runs at most once. */
  once<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    const off = this.on(event, (payload) => {
      off();
      listener(payload);
    });
    return off;
  }

  off<K extends keyof Events>(event: K, listener: Listener<Events[K]>): void {
    this.listeners.get(event)?.delete(listener as Listener<never>);
  }

  protected emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as Listener<Events[K]>)(payload);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  protected listenerCount<K extends keyof Events>(event: K): number {
    return this.listeners.get(event)?.size ?? 0;
  }
}
