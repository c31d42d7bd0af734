import { joinKind, mergeByOffset, shouldPause } from '../../../src/adapters/kafka/partition-stream';

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

describe('mergeByOffset: what a released batch did not resolve, back among the queued records', () => {
  const at = (...offsets: number[]) => offsets.map((offset) => ({ offset: BigInt(offset) }));
  it('merges two runs in offset order, each offset once', () => {
    expect(mergeByOffset(at(10, 11, 12), at(13, 14)).map(({ offset }) => Number(offset))).toEqual([10, 11, 12, 13, 14]);
    // a later batch's records came back first, then the earlier batch's
    expect(mergeByOffset(at(10, 11), at(20, 21, 30)).map(({ offset }) => Number(offset))).toEqual([10, 11, 20, 21, 30]);
    expect(mergeByOffset(at(20, 21), at(10, 11, 30)).map(({ offset }) => Number(offset))).toEqual([10, 11, 20, 21, 30]);
    expect(mergeByOffset(at(10, 11, 12), at(11, 12, 13)).map(({ offset }) => Number(offset))).toEqual([10, 11, 12, 13]);
    expect(mergeByOffset(at(), at(5))).toEqual(at(5));
  });
});

describe('joinKind: what a join means for the records a member holds', () => {
  const member = (memberId: string, generationId: number) => ({ memberId, generationId });

  it('the first join; the same generation told again', () => {
    expect(joinKind(undefined, member('a', 2))).toBe('first');
    expect(joinKind(member('a', 2), member('a', 2))).toBe('repeat');
  });

  it('a new generation, a new member (its session expired while it was stopped), or a generation gone by without it: rebalanced', () => {
    expect(joinKind(member('a', 2), member('a', 3))).toBe('rebalanced');
    expect(joinKind(member('a', 2), member('b', 4))).toBe('rebalanced');
    expect(joinKind(member('a', 2), member('a', 4))).toBe('rebalanced');
  });
});
