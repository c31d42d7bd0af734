import { Parser, fromFile } from '@asyncapi/parser';

/**
 * What asyncapi.yaml documents, read with the AsyncAPI parser, and the check that it covers the
 * contract the code defines (schemas/, the configured topics, the topology). Used by
 * test/unit/contract/asyncapi.test.ts.
 */
export interface DocumentedOperation {
  id: string;
  action: string;
  channel: string;
  messages: string[];
  replyAddress?: string;
  replyChannel?: string;
  replyMessages: string[];
}

export interface DocumentedContract {
  /** Channel address → the Avro record full names of its messages. */
  channels: Map<string, Set<string>>;
  /** Message record name → where its correlation id is read. */
  correlationIds: Map<string, string | undefined>;
  /** Message record name → the top-level field names of its Avro payload. */
  payloadFields: Map<string, string[]>;
  operations: DocumentedOperation[];
  /** Diagnostics of severity error. */
  errors: string[];
}

/** The Avro record full name of a message whose payload is an Avro schema, else undefined. */
function avroRecordOf(payload: unknown): string | undefined {
  const { schemaFormat, schema } = (payload ?? {}) as { schemaFormat?: string; schema?: { name?: string; namespace?: string } };
  if (!schemaFormat?.startsWith('application/vnd.apache.avro') || !schema?.name) return undefined;
  return schema.namespace ? `${schema.namespace}.${schema.name}` : schema.name;
}

export async function readAsyncApi(file: string): Promise<DocumentedContract> {
  const { document, diagnostics } = await fromFile(new Parser(), file).parse();
  // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-comparison -- severity is spectral's own copy of the enum, which no import here names; 0 is Error
  const errors = diagnostics.filter((d) => d.severity === 0).map((d) => `${d.path.join('.')}: ${d.message}`);
  const contract: DocumentedContract = { channels: new Map(), correlationIds: new Map(), payloadFields: new Map(), operations: [], errors };
  if (!document) return contract;
  const recordOf = (message: { payload(): { json(): unknown } | undefined; id(): string }) => avroRecordOf(message.payload()?.json()) ?? message.id();
  for (const channel of document.channels()) {
    const records = new Set<string>();
    for (const message of channel.messages()) {
      const record = avroRecordOf(message.payload()?.json());
      if (!record) continue;
      records.add(record);
      contract.correlationIds.set(record, message.correlationId()?.location());
      const { schema } = message.payload()!.json<{ schema: { fields?: { name: string }[] } }>();
      contract.payloadFields.set(
        record,
        (schema.fields ?? []).map((f) => f.name),
      );
    }
    contract.channels.set(channel.address() ?? channel.id(), records);
  }
  for (const operation of document.operations()) {
    const reply = operation.reply();
    contract.operations.push({
      id: operation.id() ?? '',
      action: operation.action() ?? '',
      channel: operation.channels().all()[0]?.address() ?? '',
      messages: operation.messages().all().map(recordOf),
      replyAddress: reply?.address()?.location(),
      replyChannel: reply?.channel()?.address() ?? undefined,
      replyMessages: reply?.messages().all().map(recordOf) ?? [],
    });
  }
  return contract;
}

export interface CodeContract {
  /** Full names of every record in schemas/. */
  schemas: Iterable<string>;
  /** Topic role → configured (default) topic name. */
  topics: Readonly<Record<string, string>>;
  /** Partner topic role → its channel address, the partner id as the parameter `{partnerId}`. */
  partnerTopics: Readonly<Record<string, string>>;
  /** Topic role → record full names, as src/adapters/registry/topology.ts lists them. */
  topicRecords: Readonly<Record<string, readonly string[]>>;
  /** Command topic role → its reply topic role. */
  commandTopics: Readonly<Record<string, { replies: string }>>;
  errorReply: string;
}

export const REPLY_ADDRESS = '$message.header#/X-Reply-Topic';
export const CORRELATION_ID = '$message.header#/X-Correlation-Id';
const PAYLOAD_POINTER = '$message.payload#/';

/** Everything the code defines that the document does not say, and everything it says that the code does not define. */
export function contractDrift(documented: DocumentedContract, code: CodeContract): string[] {
  const problems = [...documented.errors];
  const allDocumented = new Set([...documented.channels.values()].flatMap((records) => [...records]));
  for (const schema of code.schemas) {
    if (!allDocumented.has(schema)) problems.push(`schema ${schema} (schemas/) is not the payload of any message`);
  }
  const configured = new Set([...Object.values(code.topics), ...Object.values(code.partnerTopics)]);
  for (const [role, topic] of [...Object.entries(code.topics), ...Object.entries(code.partnerTopics)]) {
    const channel = documented.channels.get(topic);
    if (!channel) {
      problems.push(`topic ${topic} (${role}) has no channel`);
      continue;
    }
    const expected = new Set(code.topicRecords[role] ?? []);
    for (const record of expected) if (!channel.has(record)) problems.push(`record ${record} on ${topic} (${role}) is not a message of its channel`);
    for (const record of channel) if (!expected.has(record)) problems.push(`channel ${topic} documents ${record}, which the topology does not put on ${role}`);
  }
  for (const [record, location] of documented.correlationIds) {
    const field = location?.startsWith(PAYLOAD_POINTER) ? location.slice(PAYLOAD_POINTER.length) : undefined;
    if (field !== undefined && !documented.payloadFields.get(record)?.includes(field)) problems.push(`message ${record}: its correlation id ${location} names a field its schema does not have`);
  }
  for (const address of documented.channels.keys()) {
    if (!configured.has(address)) problems.push(`channel ${address} is not a configured topic`);
  }
  for (const [commandRole, { replies }] of Object.entries(code.commandTopics)) {
    for (const command of code.topicRecords[commandRole] ?? []) problems.push(...requestReplyDrift(documented, command, code.topics[commandRole], code.partnerTopics[replies], code.errorReply));
  }
  return problems;
}

/** A command is received by an operation whose reply goes to X-Reply-Topic on its partner's reply channel, with `<Command>Reply` or ErrorReply. */
function requestReplyDrift(documented: DocumentedContract, command: string, commandTopic: string, replyTopic: string, errorReply: string): string[] {
  const operation = documented.operations.find((o) => o.action === 'receive' && o.channel === commandTopic && o.messages.includes(command));
  if (!operation) return [`command ${command} is received by no operation on ${commandTopic}`];
  const problems: string[] = [];
  if (operation.replyAddress !== REPLY_ADDRESS) problems.push(`operation ${operation.id}: the reply address must be ${REPLY_ADDRESS}`);
  if (operation.replyChannel !== replyTopic) problems.push(`operation ${operation.id}: the reply channel must be ${replyTopic}`);
  for (const reply of [`${command}Reply`, errorReply]) {
    if (!operation.replyMessages.includes(reply)) problems.push(`operation ${operation.id}: ${reply} is not among its reply messages`);
  }
  for (const record of [command, ...operation.replyMessages]) {
    if (documented.correlationIds.get(record) !== CORRELATION_ID) problems.push(`message ${record}: its correlation id must be at ${CORRELATION_ID}`);
  }
  return problems;
}
