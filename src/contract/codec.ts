// What the pipeline and the client expect of the Avro codec (src/adapters/registry/avro-codec.ts), and
// the two ways it fails that are the record's fault rather than the infrastructure's.

export type DecodeFailure = 'NOT_AVRO' | 'UNKNOWN_SCHEMA' | 'UNDECODABLE';

/**
 * A value that cannot be decoded (it goes to the DLQ). `message` says what failed without quoting the
 * record (it travels in clear: the x-dlq-detail header, the requester's BAD_REQUEST); `diagnostic` is the
 * decoder's own text, which may quote field values and is kept only inside the sealed dead letter.
 */
export class DecodeError extends Error {
  constructor(
    readonly reason: DecodeFailure,
    message: string,
    readonly diagnostic: string = message,
  ) {
    super(message);
    this.name = 'DecodeError';
  }
}

/**
 * An encode refused because the value does not match its record's schema (a bug, or a requester's bad
 * input; never the infrastructure): retrying cannot help. `paths` name the fields, as avsc's segments.
 */
export class SchemaMismatchError extends Error {
  constructor(
    message: string,
    readonly paths: readonly string[][],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SchemaMismatchError';
  }
}

export interface DecodedRecord {
  schemaId: number;
  recordName: string;
  value: Record<string, unknown>;
}

export interface Codec {
  /** Throws DecodeError for a value that is not a decodable record. */
  decode(buffer: Buffer | null): Promise<DecodedRecord>;
  /**
   * The full name of the record a value was written as, from its schema id alone (the body is not read);
   * undefined when the value is not a record of a known schema (decode would refuse it).
   */
  recordNameOf(buffer: Buffer | null): Promise<string | undefined>;
  /** Throws SchemaMismatchError for a value that does not match the record's schema. */
  encode(topic: string, recordName: string, value: object): Promise<Buffer>;
}
