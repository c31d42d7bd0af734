import { FailedPartitions } from '../../../src/adapters/kafka/failed-partitions';

const at = (first: number, offset: number, generationId = 1, partition = 0) => ({
  generation: { groupId: 'g', memberId: 'm', generationId },
  topic: 'commands',
  partition,
  first: String(first),
  offset: String(offset),
});

describe('FailedPartitions: no unit is written past a failed one of its partition', () => {
  it('refuses the later units of a failed partition until its records are handed out again from the failed one', () => {
    const failures = new FailedPartitions();
    failures.failed(at(20, 29));
    expect(failures.refuses(at(30, 39))).toBe(true);
    expect(failures.refuses(at(40, 49))).toBe(true);
    expect(failures.refuses(at(10, 19, 1, 1))).toBe(false); // another partition
    expect(failures.refuses(undefined)).toBe(false); // a scheduler's events
    expect(failures.refuses(at(20, 39))).toBe(false); // handed out again from the failed record
    expect(failures.refuses(at(40, 49))).toBe(false);
  });

  it('keeps the earliest failure, and forgets it in another generation (the partition moved and came back)', () => {
    const failures = new FailedPartitions();
    failures.failed(at(30, 39));
    failures.failed(at(20, 29));
    expect(failures.refuses(at(25, 30))).toBe(true);
    expect(failures.refuses(at(50, 59, 2))).toBe(false);
    expect(failures.refuses(at(60, 69, 2))).toBe(false);
  });
});
