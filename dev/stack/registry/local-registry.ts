import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadStackConfig } from '../config';
import { apicurioRunnerJar } from '../artifacts/distributions';
import { allocatePorts, LOOPBACK } from '../net/ports';
import { createServerFolder, LocalServer, type ServerControl, type ServerFolderOptions } from '../process/local-server';
import { waitUntil } from '../process/wait';
import { CCOMPAT_PATH } from '../versions';

export interface LocalRegistryOptions extends ServerFolderOptions {
  readonly port?: number;
  /** Where the unpacked Apicurio Registry is cached; default from the stack configuration (STACK_CACHE_DIR). */
  readonly cacheDir?: string;
  readonly readyTimeoutMs?: number;
}

export interface LocalRegistry extends ServerControl {
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly baseUrl: string;
  /** The Confluent-compatible API, http://127.0.0.1:<port>/apis/ccompat/v7: give this to Confluent clients. */
  readonly url: string;
}

/**
 * Apicurio Registry (Quarkus runner, in-memory H2 storage) on a free loopback port. Schema ids are content
 * ids and canonical hashing is on, as Confluent clients expect. Its storage lives in memory: a restart
 * starts with no schemas.
 */
export async function startLocalRegistry(options: LocalRegistryOptions = {}): Promise<LocalRegistry> {
  const jar = await apicurioRunnerJar(options.cacheDir ?? loadStackConfig().cacheDir);
  const port = options.port ?? (await allocatePorts({ count: 1 }))[0];
  const dir = createServerFolder(`apicurio-${port}`, options);
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const baseUrl = `http://${LOOPBACK}:${port}`;
  const server = new LocalServer({
    spec: {
      name: `apicurio ${port}`,
      command: 'java',
      args: [
        '-Xmx384m',
        '-XX:+UseSerialGC',
        `-Djava.io.tmpdir=${tmp}`,
        `-Dvertx.cacheDirBase=${join(tmp, 'vertx')}`,
        `-Dquarkus.http.host=${LOOPBACK}`,
        `-Dquarkus.http.port=${port}`,
        '-Dapicurio.ccompat.use-canonical-hash=true',
        '-jar',
        jar,
      ],
      cwd: dir,
      logFile: join(dir, 'apicurio.log'),
      stopTimeoutMs: 10_000,
    },
    dir,
    keepFiles: options.keepFiles,
    waitReady: (process) =>
      waitUntil(async () => ((await fetch(`${baseUrl}/health/ready`)).ok ? true : undefined), {
        what: 'ready on /health/ready',
        timeoutMs: options.readyTimeoutMs ?? 90_000,
        process,
      }).then(() => undefined),
  });
  await server.start();
  return Object.assign(server, { port, baseUrl, url: `${baseUrl}${CCOMPAT_PATH}` });
}
