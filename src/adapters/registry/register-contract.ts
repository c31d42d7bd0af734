import type { TopicRole } from '../../contract/topics';
import { loadSchemas, type AvroRecordSchema } from './schemas';
import { TOPIC_RECORDS } from './topology';

export interface SchemaRegistrar {
  register(topic: string, schema: AvroRecordSchema, recordName: string): Promise<number>;
}

/** Registers every record of the topology under its topic's subject; a record without a schema file is an error. */
export async function registerContract(registrar: SchemaRegistrar, topics: Readonly<Record<TopicRole, string>>, schemas = loadSchemas()): Promise<number> {
  const jobs: Promise<number>[] = [];
  for (const [role, records] of Object.entries(TOPIC_RECORDS) as [TopicRole, readonly string[]][]) {
    for (const recordName of records) {
      const schema = schemas.get(recordName);
      if (!schema) throw new Error(`record ${recordName} on ${role} has no schema in schemas/`);
      jobs.push(registrar.register(topics[role], schema, recordName));
    }
  }
  return (await Promise.all(jobs)).length;
}
