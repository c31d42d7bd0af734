import { createResponsePlayer } from '../../../dev/np-simulator/response-player';

interface Response {
  requestId: string;
  name: string;
  afterMs: number;
}

const SCALE = 100_000; // the fault suite's NP_SIM_TIME_SCALE: an hour of NP time is 36 ms
/** A delayed port as the rules plan it: order id at 1 s, delay at 1 min, confirmation 30 min later, activation. */
const DELAYED_PORT = [
  { name: 'OrderIdAssigned', afterMs: 1_000 },
  { name: 'PortDelayed', afterMs: 60_000 },
  { name: 'PortConfirmed', afterMs: 1_860_000 },
  { name: 'ActivationComplete', afterMs: 3_600_000 },
];

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the NP simulator plays each request's responses in order", () => {
  it("in plan order under load, requests arriving from other timers' callbacks (as a consumer's do); none early", async () => {
    const sent = new Map<string, string[]>();
    const early: string[] = [];
    const startedAt = new Map<string, number>();
    let arrived = 0;
    const arrive = () => {
      const requestId = `r${arrived++}`;
      startedAt.set(requestId, performance.now());
      player.play(
        requestId,
        DELAYED_PORT.map((r) => ({ ...r, requestId })),
        true,
      );
    };
    const player = createResponsePlayer<Response>(SCALE, (response) => {
      sent.set(response.requestId, [...(sent.get(response.requestId) ?? []), response.name]);
      if (performance.now() + 1 < startedAt.get(response.requestId)! + response.afterMs / SCALE) early.push(`${response.requestId} ${response.name}`);
      busy(Math.random() * 0.5);
      // a new request read while responses go out: set from within a timer's callback
      void Promise.resolve().then(() => arrived < 600 && Math.random() < 0.3 && arrive());
    });
    for (let i = 0; i < 20; i++) arrive();
    const load = setInterval(() => {
      busy(Math.random() * 20);
      if (arrived < 600) arrive();
    }, 3);
    try {
      while (arrived < 600 || [...sent.values()].filter((names) => names.length === DELAYED_PORT.length).length < arrived) await sleep(50);
    } finally {
      clearInterval(load);
      player.stop();
    }
    const outOfOrder = [...sent.entries()].filter(([, names]) => names.join() !== DELAYED_PORT.map((r) => r.name).join());
    expect(outOfOrder.slice(0, 3)).toEqual([]);
    expect(sent.size).toBe(600);
    expect(early).toEqual([]);
  }, 30_000);

  it('a superseding request drops what its order still had pending; one that does not plays beside it; stop drops all', async () => {
    const sent: string[] = [];
    const player = createResponsePlayer<Response>(1, (response) => sent.push(response.name));
    player.play(
      'a',
      [
        { requestId: 'a', name: 'first', afterMs: 0 },
        { requestId: 'a', name: 'dropped', afterMs: 40 },
      ],
      true,
    );
    await sleep(10);
    player.play('a', [{ requestId: 'a', name: 'CancelConfirmed', afterMs: 0 }], true);
    player.play('b', [{ requestId: 'b', name: 'pending', afterMs: 30 }], true);
    player.play('b', [{ requestId: 'b', name: 'CancelRefused', afterMs: 0 }], false);
    player.play('c', [{ requestId: 'c', name: 'never', afterMs: 200 }], true);
    await sleep(80);
    player.stop();
    await sleep(200);
    expect(sent).toEqual(['first', 'CancelConfirmed', 'CancelRefused', 'pending']);
  });
});
