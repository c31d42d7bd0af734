// The nemesis's workload: real partners at once, each recording into the history what it sent and was
// told — a Kafka partner on an idempotent producer (gzip and LZ4), one on a transactional producer (Snappy
// and none) aborting one transaction in four, and an HTTP partner through the gateway that sends a command
// again under the same X-Correlation-Id while it gets no answer. Every command is an UpdateBalances "Add 1"
// to a sub-balance of the run's subscriptions, but one batch in three of the idempotent partner's: five
// TransferBalance of 1 from a number to another (the same sub-balance type and unit), the fifth to a
// sub-balance the other number does not have (refused there: the debit reversed).
import { randomUUID } from 'node:crypto';
import LZ4Codec from '@2l/kafkajs-lz4';
import { CompressionCodecs, CompressionTypes, type Message, type Producer, type ProducerConfig, type RecordMetadata } from 'kafkajs';
import type { ServiceConfig } from '../../../src/app/config';
import type { AvroCodec } from '../../../src/adapters/registry/avro-codec';
import { request } from '../../support/gateway';
import { partnerHeaders, partnerToken, FAULT_CUSTOMER } from '../../faults/support/fault-config';
import { kafkaClient } from '../../faults/support/topics';
import type { Channel, History } from './history';

// kafkajs-snappy ships no types: a kafkajs codec factory
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a package without types, loaded as the CommonJS module it is
const SnappyCodec = require('kafkajs-snappy') as () => unknown;

const UPDATE_BALANCES = 'wholesale.balance.v1.UpdateBalances';
const TRANSFER_BALANCE = 'wholesale.balance.v1.TransferBalance';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A sub-balance the partners add to. */
export interface Target {
  gpsi: string;
  subBalanceInstId: string;
  subBalanceType: string;
  unitType: string;
}

/** A batch of commands to send: each with its id and number. */
type Batch = { id: string; gpsi: string; message: Message }[];

const addOne = (t: Target) => ({
  gpsi: t.gpsi,
  balances: [{ subBalanceInstId: t.subBalanceInstId, balanceType: 'Main', subBalanceType: t.subBalanceType, action: 'Add', quantity: 1, unitType: t.unitType }],
});

export interface PartnerOptions {
  config: ServiceConfig;
  codec: AvroCodec;
  targets: Target[];
  history: History;
  /** The gateway's URL, for the HTTP partner. */
  gatewayUrl: string;
  /** Commands per second of each Kafka partner (the HTTP partner sends one at a time, four in parallel). */
  ratePerSecond: number;
}

/** The partners, running until stop(); counts of what each sent. */
export class Partners {
  private stopping = false;
  private readonly runs: Promise<void>[] = [];
  readonly sent: Record<Exclude<Channel, 'charging'>, number> = { idempotent: 0, transactional: 0, http: 0 };
  aborted = 0;
  /** Producers closed and opened again after a failed transaction. */
  renewed = 0;
  retries = 0;
  /** TransferBalance commands among the idempotent partner's. */
  transfers = 0;
  private next = 0;

  constructor(private readonly options: PartnerOptions) {
    const codecs = CompressionCodecs as unknown as Record<number, () => unknown>;
    codecs[CompressionTypes.Snappy] = SnappyCodec;
    codecs[CompressionTypes.LZ4] = new LZ4Codec().codec;
  }

  /** The next target, round-robin: every number gets commands from every partner, so their order is tested across partners. */
  private target(): Target {
    return this.options.targets[this.next++ % this.options.targets.length];
  }

  start(): void {
    this.runs.push(this.idempotentPartner(), this.transactionalPartner(), ...Array.from({ length: 4 }, () => this.httpPartner()));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.runs);
  }

  /**
   * `count` commands to one number (its sub-balances in turn): one partition per send, as balance-load.ts
   * sends — kafkajs acknowledged a send to several brokers of which the records on one partition never
   * reached the topic (a broker had just resumed; the nemesis found them lost).
   */
  private async messages(count: number, transfer = false): Promise<Batch> {
    const { gpsi } = this.target();
    const { targets, codec, config } = this.options;
    const ofNumber = targets.filter((t) => t.gpsi === gpsi);
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const target = ofNumber[i % ofNumber.length];
        const id = randomUUID();
        const to = transfer ? this.transferTarget(target) : undefined;
        // the batch's last transfer goes to a sub-balance the other number does not have: refused there, the debit reversed
        const toSubBalanceInstId = (t: Target) => (i === count - 1 ? `${t.gpsi}-404` : t.subBalanceInstId);
        const [operation, body] = to
          ? [TRANSFER_BALANCE, { gpsi, subBalanceInstId: target.subBalanceInstId, toGpsi: to.gpsi, toSubBalanceInstId: toSubBalanceInstId(to), amount: 1 }]
          : [UPDATE_BALANCES, addOne(target)];
        if (to) this.transfers++;
        const value = await codec.encode(config.topics.balanceCommands, operation, body);
        return { id, gpsi: target.gpsi, message: { key: target.gpsi, value, headers: await partnerHeaders(id) } };
      }),
    );
  }

  /** A sub-balance of another number of the same type and unit, round-robin over the targets (none: an Add instead). */
  private transferTarget(from: Target): Target | undefined {
    const { targets } = this.options;
    const start = this.next++ % targets.length;
    return [...targets.slice(start), ...targets.slice(0, start)].find((t) => t.gpsi !== from.gpsi && t.subBalanceType === from.subBalanceType && t.unitType === from.unitType);
  }

  /** Each command of the batch sent, with where Kafka wrote it when it said (one partition per batch: consecutive offsets). */
  private record(channel: Channel, batch: Batch, outcome: 'committed' | 'aborted' | 'unknown', written?: RecordMetadata[]) {
    const at = Date.now();
    const [where] = written ?? [];
    batch.forEach(({ id, gpsi }, i) => {
      const acknowledged = where ? { topic: where.topicName, partition: where.partition, offset: Number(where.baseOffset) + i } : undefined;
      this.options.history.push({ kind: 'send', at, id, gpsi, channel, outcome, ...(acknowledged ? { acknowledged } : {}) });
    });
  }

  /**
   * A Kafka partner: `sendBatch` with each batch of 5 commands to one number, at the partners' rate, until
   * stop(). A batch answered `renew` closes the producer and opens another under the same transactional id,
   * as Kafka prescribes after a failed transaction: the new one's InitProducerId aborts the transaction the
   * old one left open, which would otherwise hold its partitions from every read_committed reader (the
   * workers included) until `transactionTimeout`.
   */
  private async kafkaPartner(
    channel: 'idempotent' | 'transactional',
    options: ProducerConfig,
    sendBatch: (producer: Producer, batch: Batch, round: number) => Promise<'sent' | 'renew'>,
    transfersEvery = 0,
  ): Promise<void> {
    const open = async (): Promise<Producer> => {
      for (;;) {
        const producer = kafkaClient(this.options.config.kafka.brokers, `nemesis-${channel}`).producer({
          allowAutoTopicCreation: false,
          idempotent: true,
          maxInFlightRequests: 1,
          retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 1000 },
          ...options,
        });
        try {
          await producer.connect();
          return producer;
        } catch {
          await producer.disconnect().catch(() => undefined);
          await sleep(500);
        }
      }
    };
    let producer = await open();
    try {
      for (let round = 0; !this.stopping; round++) {
        const batch = await this.messages(5, transfersEvery > 0 && round % transfersEvery === transfersEvery - 1);
        if ((await sendBatch(producer, batch, round)) === 'renew') {
          this.renewed++;
          await producer.disconnect().catch(() => undefined);
          producer = await open();
        }
        this.sent[channel] += batch.length;
        await sleep((5 * 1000) / this.options.ratePerSecond);
      }
    } finally {
      await producer.disconnect().catch(() => undefined);
    }
  }

  /** Idempotent, acks all, gzip and LZ4; a send that fails is sent again as it was (the same ids), as a partner would. */
  private idempotentPartner(): Promise<void> {
    const topic = this.options.config.topics.balanceCommands;
    return this.kafkaPartner(
      'idempotent',
      {},
      async (producer, batch, round) => {
        const compression = round % 2 === 0 ? CompressionTypes.GZIP : CompressionTypes.LZ4;
        for (let attempt = 0; ; attempt++) {
          try {
            this.record('idempotent', batch, 'committed', await producer.send({ topic, acks: -1, compression, messages: batch.map((b) => b.message) }));
            return 'sent';
          } catch {
            this.record('idempotent', batch, 'unknown');
            if (this.stopping && attempt > 20) return 'sent';
            await sleep(500);
          }
        }
      },
      3,
    );
  }

  /**
   * Transactions of 5, Snappy and none, one in four aborted on purpose, each ending within `transactionTimeout`
   * (10 s) at most. A transaction that fails is aborted if it can be and left; the producer is renewed.
   */
  private transactionalPartner(): Promise<void> {
    const topic = this.options.config.topics.balanceCommands;
    const options = { transactionalId: `nemesis-partner-${randomUUID()}`, transactionTimeout: 10_000 };
    return this.kafkaPartner('transactional', options, async (producer, batch, round) => {
      const compression = round % 2 === 0 ? CompressionTypes.Snappy : CompressionTypes.None;
      const abort = round % 4 === 3;
      try {
        const transaction = await producer.transaction();
        try {
          const written = await transaction.send({ topic, acks: -1, compression, messages: batch.map((b) => b.message) });
          if (abort) {
            await transaction.abort();
            this.aborted += batch.length;
          } else await transaction.commit();
          this.record('transactional', batch, abort ? 'aborted' : 'committed', written);
          return 'sent';
        } catch (error) {
          await transaction.abort().catch(() => undefined);
          throw error;
        }
      } catch {
        // the commit may have gone through before its answer was lost: the history cannot say
        this.record('transactional', batch, 'unknown');
        await sleep(500);
        return 'renew';
      }
    });
  }

  /** One command at a time through the gateway; no answer (a network error, a 5xx, the gateway's timeout) → the same command again, same id. */
  private async httpPartner(): Promise<void> {
    const token = await partnerToken();
    const { history, gatewayUrl } = this.options;
    while (!this.stopping) {
      const target = this.target();
      const id = randomUUID();
      history.push({ kind: 'send', at: Date.now(), id, gpsi: target.gpsi, channel: 'http', outcome: 'unknown' });
      this.sent.http++;
      for (let attempt = 0; attempt < 30; attempt++) {
        const answer = await request(gatewayUrl, 'PATCH', '/balances', { token, body: addOne(target), headers: { 'X-Correlation-Id': id, wholesaleCustomerId: FAULT_CUSTOMER } }).catch(
          (error: unknown) => ({ status: 0, body: { error: String(error) } }),
        );
        if (answer.status > 0 && answer.status < 500) {
          const body = answer.body as { code?: string } | undefined;
          history.push({ kind: 'reply', id, status: answer.status === 200 ? 'Success' : `HTTP ${answer.status} ${body?.code ?? ''}`.trim(), channel: 'http' });
          break;
        }
        history.push({ kind: 'retry', at: Date.now(), id, channel: 'http', why: answer.status === 0 ? 'no connection' : `HTTP ${answer.status}` });
        this.retries++;
        await sleep(500);
      }
    }
  }
}
