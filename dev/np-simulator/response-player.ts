/** A response the rules planned: due `afterMs` (simulated time) after its request arrived. */
export interface Planned {
  afterMs: number;
}

export interface ResponsePlayer<T extends Planned> {
  /**
   * Plays one request's responses in the order given, each when it is due (`afterMs / timeScale` real ms
   * after now). `supersede`: the request's responses still pending are dropped first.
   */
  play(requestId: string, responses: readonly T[], supersede: boolean): void;
  /** Drops everything pending. */
  stop(): void;
}

/**
 * One timer at a time per request, the next set when the one before fired, each aimed at its own due time.
 * A timer per response is not enough: Node does not fire timers of different durations in the order they
 * are due when they are set from the callbacks of other timers, and under load a request's PortConfirmed
 * (due later) left before its OrderIdAssigned and PortDelayed, which the lifecycle then ignored.
 */
export function createResponsePlayer<T extends Planned>(timeScale: number, onDue: (response: T) => void): ResponsePlayer<T> {
  /** Per request, its plays under way (a refused cancel's answer plays beside what was pending), each on its one timer. */
  const plays = new Map<string, Set<{ timer?: NodeJS.Timeout }>>();
  let stopped = false;

  return {
    play(requestId, responses, supersede) {
      let ofRequest = plays.get(requestId);
      if (!ofRequest) plays.set(requestId, (ofRequest = new Set()));
      if (supersede) {
        for (const playing of ofRequest) clearTimeout(playing.timer);
        ofRequest.clear();
      }
      const playing: { timer?: NodeJS.Timeout } = {};
      ofRequest.add(playing);
      const arrivedAt = performance.now();
      const playFrom = (index: number) => {
        const next = responses[index];
        if (!next) {
          ofRequest.delete(playing);
          if (ofRequest.size === 0) plays.delete(requestId);
          return;
        }
        playing.timer = setTimeout(
          () => {
            if (stopped) return;
            onDue(next);
            playFrom(index + 1);
          },
          Math.max(0, arrivedAt + next.afterMs / timeScale - performance.now()),
        );
      };
      playFrom(0);
    },
    stop() {
      stopped = true;
      for (const ofRequest of plays.values()) for (const playing of ofRequest) clearTimeout(playing.timer);
      plays.clear();
    },
  };
}
