import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { ConfluentSchemaRegistryCompatibilityError, ConfluentSchemaRegistryValidationError } from '@kafkajs/confluent-schema-registry/dist/errors';
import { Type, type Resolver } from 'avsc';
import { DecodeError, SchemaMismatchError, type Codec, type DecodedRecord } from '../../contract/codec';
import { RetriableError } from '../../contract/errors';
import { loadSchemas, type AvroRecordSchema } from './schemas';
import { subjectFor } from './topology';
import { avroBoundsProblem } from './avro-bounds';

/** The registry client's validation failure as the codec's SchemaMismatchError; any other error as it is. */
export const asSchemaMismatch = (error: unknown): unknown =>
  error instanceof ConfluentSchemaRegistryValidationError ? new SchemaMismatchError(error.message, error.paths, { cause: error }) : error;

const WIRE_HEADER_BYTES = 5;

const httpStatusOf = (error: unknown): number | undefined => (typeof error === 'object' && error !== null && 'status' in error ? Number(error.status) : undefined);

/**
 * How a value written with one schema version is read as the version this code was built with (Avro schema
 * resolution): a partner still on an older command schema gets the reader's defaults for the fields it lacks,
 * one on a newer schema has its extra fields dropped, so handlers always see the shape of schemas/.
 */
interface ReadPlan {
  reader: Type;
  resolver?: Resolver;
}

/**
 * Avro in the Confluent wire format (magic byte 0, 4-byte big-endian schema id, Avro body) over a
 * Confluent-compatible registry (Confluent's or Apicurio's ccompat API). Schema ids are resolved once per
 * subject and writer schemas once per id, so the hot path never waits on the registry.
 */
export class AvroCodec implements Codec {
  private readonly registry: SchemaRegistry;
  private readonly idBySubject = new Map<string, number>();
  private readonly readers: ReadonlyMap<string, Type>;
  private readonly plans = new Map<number, ReadPlan>();
  /** Writer schemas resolved (an id's schema never changes): the hot path takes them without an await. */
  private readonly writerTypes = new Map<number, Type>();

  /** `readerSchemas`: the records this process reads, by full name (default: every record of schemas/). */
  constructor(
    private readonly registryUrl: string,
    readerSchemas: ReadonlyMap<string, AvroRecordSchema> = loadSchemas(),
  ) {
    this.registry = new SchemaRegistry({ host: registryUrl, retry: { retries: 2 } });
    this.readers = new Map([...readerSchemas].map(([name, schema]) => [name, Type.forSchema(schema as never)]));
  }

  /** Registers a record under `<topic>-<record>` with BACKWARD compatibility; returns its id. */
  async register(topic: string, schema: AvroRecordSchema, recordName: string): Promise<number> {
    const subject = subjectFor(topic, recordName);
    const body = { type: SchemaType.AVRO as const, schema: JSON.stringify(schema) };
    const registerOnce = () => this.registry.register(body, { subject, compatibility: COMPATIBILITY.BACKWARD });
    let id: number;
    try {
      ({ id } = await registerOnce());
    } catch (error) {
      if (httpStatusOf(error) === 409) {
        // Another instance starting at the same moment created the subject's rule first (Apicurio: 409 "A rule
        // named 'COMPATIBILITY' already exists"): it is there now, and the second attempt checks it.
        ({ id } = await registerOnce());
      } else {
        // Apicurio answers an existing subject without its own rule with the global default (Confluent: 404).
        if (!(error instanceof ConfluentSchemaRegistryCompatibilityError)) throw error;
        await this.setBackwardCompatibility(subject);
        ({ id } = await registerOnce());
      }
    }
    this.idBySubject.set(subject, id);
    return id;
  }

  private async setBackwardCompatibility(subject: string): Promise<void> {
    const response = await fetch(`${this.registryUrl}/config/${encodeURIComponent(subject)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ compatibility: COMPATIBILITY.BACKWARD }),
    });
    // 409: another instance set the rule at the same moment; the registration that follows checks it.
    if (!response.ok && response.status !== 409) throw new Error(`registry refused the compatibility of ${subject}: HTTP ${response.status}`);
  }

  /** The latest id of a subject somebody else registered (clients look ids up, the service registers). */
  async lookup(topic: string, recordName: string): Promise<number> {
    const subject = subjectFor(topic, recordName);
    const known = this.idBySubject.get(subject);
    if (known !== undefined) return known;
    const id = await this.registry.getLatestSchemaId(subject);
    this.idBySubject.set(subject, id);
    return id;
  }

  async encode(topic: string, recordName: string, value: object): Promise<Buffer> {
    const id = this.idBySubject.get(subjectFor(topic, recordName)) ?? (await this.lookup(topic, recordName));
    try {
      const type = this.writerTypes.get(id);
      if (!type) {
        const first = await this.registry.encode(id, value);
        const schema = await this.registry.getSchema(id); // in the client's cache now: no request
        if (schema instanceof Type) this.writerTypes.set(id, schema);
        return first;
      }
      let body: Buffer;
      try {
        body = type.toBuffer(value);
      } catch {
        return await this.registry.encode(id, value); // it fails alike, naming the invalid paths
      }
      // The wire format in one buffer (the registry client concatenates three)
      const wire = Buffer.allocUnsafe(WIRE_HEADER_BYTES + body.length);
      wire[0] = 0;
      wire.writeInt32BE(id, 1);
      body.copy(wire, WIRE_HEADER_BYTES);
      return wire;
    } catch (error) {
      throw asSchemaMismatch(error);
    }
  }

  /**
   * The writer schema of an id. Only the registry's failure to answer is retried: a schema it holds that is
   * not Avro (a JSON Schema shares the id space) or that avsc cannot parse (it is stricter than Java Avro,
   * e.g. on non-ASCII names) makes the record undecodable, not the registry unavailable — retrying it would
   * hold its partition for good.
   */
  async writerType(schemaId: number): Promise<Type> {
    const known = this.writerTypes.get(schemaId);
    if (known) return known;
    let schema: unknown;
    try {
      schema = await this.registry.getSchema(schemaId);
    } catch (error) {
      const status = httpStatusOf(error);
      if (status === 404) throw new DecodeError('UNKNOWN_SCHEMA', `schema id ${schemaId} is not in the registry`);
      // every failed request (refused connection, timeout, HTTP error) carries a status; a parse failure none
      if (status === undefined) throw new DecodeError('UNDECODABLE', `schema id ${schemaId} cannot be parsed: ${(error as Error).message}`);
      throw new RetriableError(`schema registry unavailable while resolving id ${schemaId}`, { cause: error });
    }
    if (!(schema instanceof Type)) throw new DecodeError('UNDECODABLE', `schema id ${schemaId} is not an Avro schema`);
    this.writerTypes.set(schemaId, schema);
    return schema;
  }

  async recordNameOf(buffer: Buffer | null): Promise<string | undefined> {
    if (!buffer || buffer.length < WIRE_HEADER_BYTES || buffer[0] !== 0) return undefined;
    try {
      const schemaId = buffer.readUInt32BE(1);
      return (this.writerTypes.get(schemaId) ?? (await this.writerType(schemaId))).name;
    } catch (error) {
      if (error instanceof DecodeError) return undefined;
      throw error;
    }
  }

  /** Decodes a wire-format value; a DecodeError says why a message is poison (it goes to the DLQ). */
  async decode(buffer: Buffer | null): Promise<DecodedRecord> {
    if (!buffer || buffer.length < WIRE_HEADER_BYTES || buffer[0] !== 0) {
      throw new DecodeError('NOT_AVRO', 'value is not in the Confluent wire format (magic byte 0 + schema id)');
    }
    const schemaId = buffer.readUInt32BE(1);
    const type = this.writerTypes.get(schemaId) ?? (await this.writerType(schemaId));
    const body = buffer.subarray(WIRE_HEADER_BYTES);
    // avsc trusts lengths and block counts: a few bytes claiming 2^30 items exhaust the heap
    const outOfBounds = avroBoundsProblem(type, body);
    if (outOfBounds) throw new DecodeError('UNDECODABLE', `Avro body does not fit schema ${schemaId}`, `Avro body does not fit schema ${schemaId}: ${outOfBounds}`);
    const plan = this.readPlan(schemaId, type);
    let value: Record<string, unknown>;
    try {
      value = plan.reader.fromBuffer(body, plan.resolver) as Record<string, unknown>;
    } catch (error) {
      throw new DecodeError('UNDECODABLE', `Avro body does not match schema ${schemaId}`, `Avro body does not match schema ${schemaId}: ${(error as Error).message}`);
    }
    return { schemaId, recordName: type.name ?? '', value };
  }

  /** The reader of a writer schema id, made once per id: this code's own version of the record when it has one. */
  private readPlan(schemaId: number, writer: Type): ReadPlan {
    const known = this.plans.get(schemaId);
    if (known) return known;
    const reader = writer.name === undefined ? undefined : this.readers.get(writer.name);
    let plan: ReadPlan = { reader: writer };
    if (reader && !reader.equals(writer)) {
      try {
        plan = { reader, resolver: reader.createResolver(writer) };
      } catch (error) {
        throw new DecodeError('UNDECODABLE', `schema ${schemaId} cannot be read as this service's ${writer.name}: ${(error as Error).message}`);
      }
    }
    this.plans.set(schemaId, plan);
    return plan;
  }
}
