// The nemesis's port-in workload, beside the balance partners: a partner sending a CreatePortIn over Kafka
// for a fresh number every `intervalMs` (the NP fault tests' shapes, in turn: completed, delayed then
// completed, rejected), the NP simulator answering on a staging topic, and the fault tests' relay (np-rig.ts)
// delivering every response to the service's NP responses topic — every other port's duplicated and
// reordered. The NP side reaches the brokers directly: the broker faults strike it, the network faults
// (between the workers and the brokers) do not.
import { randomUUID } from 'node:crypto';
import type { ServiceConfig } from '../../../src/app/config';
import { HEADER } from '../../../src/contract/headers';
import { createCommand, gpsiEndingIn, PORTIN } from '../../support/portin/journey';
import { FAULT_CUSTOMER } from '../../faults/support/fault-config';
import { NP_SHAPES, NpRig, Relay, type ShapedPort } from '../../faults/support/np-rig';
import { createTopicsOnCluster, groupProgress } from '../../faults/support/topics';
import { FINAL_PORT_STATUSES } from './checker';
import type { History } from './history';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * A CreatePortIn's reply may wait out several faults in a row (seed 51: a Redis stop, a rolling restart, a
 * partition, another stop and a failover delayed one by 82 s): a reply that has not come in 3 minutes never will.
 */
const REPLY_TIMEOUT_MS = 180_000;

export interface SentPort extends ShapedPort {
  /** The CreatePortIn's correlation id (a send again after a failure keeps it). */
  id: string;
  /** Whether the relay duplicates and reorders its NP responses. */
  faulty: boolean;
}

export class PortWorkload {
  readonly ports: SentPort[] = [];
  private readonly faulty = new Set<string>();
  private readonly replies: Promise<void>[] = [];
  private stopping = false;
  private running?: Promise<void>;

  private constructor(
    private readonly config: ServiceConfig,
    private readonly history: History,
    readonly rig: NpRig,
    readonly relay: Relay,
  ) {}

  /** The rig (on the run's Redis, which follows a failover), the simulator and the relay, ready. */
  static async start(config: ServiceConfig, history: History): Promise<PortWorkload> {
    const staging = `${config.topics.npResponses}.staging`;
    await createTopicsOnCluster(config, [staging]);
    const rig = await NpRig.start(config);
    await rig.startSimulator(staging);
    const workload: PortWorkload = new PortWorkload(config, history, rig, await Relay.start(config, staging, (gpsi) => workload.faulty.has(gpsi)));
    return workload;
  }

  start(intervalMs: number): void {
    this.running = (async () => {
      for (let i = 0; !this.stopping; i++) {
        const shape = NP_SHAPES[i % NP_SHAPES.length];
        const port: SentPort = { shape, gpsi: gpsiEndingIn(shape.suffix), id: randomUUID(), faulty: i % 2 === 1 };
        if (port.faulty) this.faulty.add(port.gpsi);
        this.ports.push(port);
        this.replies.push(this.send(port));
        await sleep(intervalMs);
      }
    })();
  }

  /** One CreatePortIn, sent again under the same id while Kafka does not acknowledge it; its reply recorded when it comes. */
  private async send(port: SentPort): Promise<void> {
    const { requester } = this.rig;
    const command = createCommand(port.gpsi);
    const reply = requester.awaitReply(port.id, REPLY_TIMEOUT_MS).then(
      (r) => void this.history.push({ kind: 'port-reply', id: port.id, gpsi: port.gpsi, status: String(r.value.status) }),
      () => undefined, // no reply: the checker says so (port-unanswered)
    );
    for (let attempt = 0; attempt < 30; attempt++) {
      const at = Date.now();
      try {
        await requester.dispatch('portinCommands', PORTIN('CreatePortIn'), command, { key: port.gpsi, correlationId: port.id, headers: { [HEADER.wholesaleCustomerId]: FAULT_CUSTOMER } });
        this.history.push({ kind: 'port-send', at, id: port.id, gpsi: port.gpsi, outcome: 'committed', faulty: port.faulty });
        break;
      } catch {
        this.history.push({ kind: 'port-send', at, id: port.id, gpsi: port.gpsi, outcome: 'unknown', faulty: port.faulty });
        await sleep(1000);
      }
    }
    await reply;
  }

  /** Stops sending and waits for the replies still due. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
    await Promise.all(this.replies);
  }

  private finished(gpsi: string): boolean {
    return this.rig.portEvents(gpsi).some((e) => FINAL_PORT_STATUSES.includes(e.value.portStatus as string));
  }

  /**
   * Waits (at most `timeoutMs`) until the NP side is done: every port answered Success announced a final
   * status, the order ids still held are delivered, and the worker group committed every NP response; then
   * records the NP side's figures.
   */
  async settle(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const accepted = new Set(this.history.flatMap((e) => (e.kind === 'port-reply' && e.status === 'Success' ? [e.gpsi] : [])));
    while (![...accepted].every((gpsi) => this.finished(gpsi)) && Date.now() < deadline) await sleep(250);
    await this.relay.flushHeld(this.config.topics.npResponses);
    let drained = false;
    while (!drained && Date.now() < deadline) {
      const progress = await groupProgress(this.config.kafka.brokers, this.config.groupId, this.config.topics.npResponses).catch(() => undefined);
      drained = progress !== undefined && progress.committed === progress.end;
      if (!drained) await sleep(250);
    }
    await sleep(1000); // a late copy of an event would arrive now
    const { received, delivered, duplicated, reordered } = this.relay;
    this.history.push({ kind: 'np-side', received, delivered, duplicated, reordered, drained });
  }

  async close(): Promise<void> {
    this.stopping = true;
    await this.relay.stop().catch(() => undefined);
    await this.rig.stop();
  }
}
