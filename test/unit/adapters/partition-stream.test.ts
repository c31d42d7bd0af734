import { shouldPause } from '../../../src/adapters/kafka/partition-stream';

const queue = (records: number, paused = false) => ({ records: Array.from({ length: records }, () => undefined as never), paused });
const none = new Set<string>();
const topics = ['commands', 'responses'];

describe("the partition stream's flow control", () => {
  const limits = { highWater: 1000, lowWater: 250 };

  it('pauses past the high water and resumes only at or below the low water', () => {
    expect(shouldPause([queue(600), queue(400)], none, topics, false, limits)).toBe(false);
    expect(shouldPause([queue(600), queue(401)], none, topics, false, limits)).toBe(true);
    expect(shouldPause([queue(251)], none, topics, true, limits)).toBe(true);
    expect(shouldPause([queue(250)], none, topics, true, limits)).toBe(false);
  });

  it("counts no held partition's records against the high water, until one holds more than the held limit", () => {
    const held = { highWater: 2000, heldLimit: 5000 };
    expect(shouldPause([queue(5000, true), queue(10)], none, topics, false, held)).toBe(false);
    expect(shouldPause([queue(5001, true), queue(10)], none, topics, false, held)).toBe(true);
  });

  it('pauses while every topic of the stream is paused, and never without limits otherwise', () => {
    expect(shouldPause([], new Set(topics), topics, false, {})).toBe(true);
    expect(shouldPause([], new Set(['commands']), topics, false, {})).toBe(false);
    expect(shouldPause([queue(1_000_000)], none, topics, false, {})).toBe(false);
  });
});
