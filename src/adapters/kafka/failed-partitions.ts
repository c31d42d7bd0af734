import type { OutputUnit } from '../../contract/transport';

type Offsets = NonNullable<OutputUnit['offsets']>;

const keyOf = ({ topic, partition }: Offsets) => `${topic}|${partition}`;

/**
 * Partitions whose outputs failed, and from which record. A partition's next slice is processed while its
 * previous slice's transaction is still open, so a unit may arrive after an earlier unit of its partition
 * failed; written, it would commit an offset past records never answered. Such a unit is refused until the
 * partition's records are handed out again from at or before the failed one (the batch loop then fetches
 * them again from the committed offset), or by another generation (the partition moved and came back).
 */
export class FailedPartitions {
  private readonly failures = new Map<string, { first: bigint; generationId: number }>();

  failed(offsets: Offsets): void {
    const key = keyOf(offsets);
    const first = BigInt(offsets.first);
    const known = this.failures.get(key);
    if (!known || known.generationId !== offsets.generation.generationId || first < known.first) {
      this.failures.set(key, { first, generationId: offsets.generation.generationId });
    }
  }

  /** True when the unit comes after a failed unit of its partition; a unit that starts over clears the failure. */
  refuses(offsets: Offsets | undefined): boolean {
    if (!offsets) return false;
    const key = keyOf(offsets);
    const known = this.failures.get(key);
    if (!known) return false;
    if (known.generationId === offsets.generation.generationId && BigInt(offsets.first) > known.first) return true;
    this.failures.delete(key);
    return false;
  }
}
