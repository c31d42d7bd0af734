import { execFile } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { APICURIO_VERSION, kafkaLogging } from '../versions';
import { cachedFolder, runMaven } from './cache';

const run = promisify(execFile);

/** The Maven recipe of Kafka's class path, kept in the repository beside this code. */
export const KAFKA_LIBS_POM = resolve(__dirname, '../maven/kafka-libs.pom.xml');

const APICURIO_KEY = `apicurio-registry-app-${APICURIO_VERSION}`;

const kafkaLibsKey = (version: string): string => {
  const { binding } = kafkaLogging(version);
  return `kafka-libs-${version}-${binding.artifactId}-${binding.version}`;
};

/** True when both distributions are in the cache, so starting them needs no Maven. */
export function distributionsCached(cacheDir: string, kafkaVersion: string): boolean {
  return [kafkaLibsKey(kafkaVersion), APICURIO_KEY].every((key) => existsSync(join(cacheDir, key)));
}

/**
 * Folder with Kafka's jars (kafka_2.13 and its runtime dependencies, plus the SLF4J binding of its logging
 * flavour), copied once from Maven's local repository (~/.m2, which caches the downloads from Maven Central).
 */
export function kafkaLibs(cacheDir: string, version: string): Promise<string> {
  const { binding } = kafkaLogging(version);
  return cachedFolder(cacheDir, kafkaLibsKey(version), async (folder) => {
    await runMaven(
      [
        '-f',
        KAFKA_LIBS_POM,
        `-Dkafka.version=${version}`,
        `-Dlogging.groupId=${binding.groupId}`,
        `-Dlogging.artifactId=${binding.artifactId}`,
        `-Dlogging.version=${binding.version}`,
        'dependency:copy-dependencies',
        '-DincludeScope=runtime',
        `-DoutputDirectory=${folder}`,
      ],
      folder,
    );
    if (!readdirSync(folder).some((name) => name.startsWith('kafka_2.13-'))) throw new Error(`Maven copied no kafka_2.13 jar into ${folder}`);
  });
}

/** The runnable Apicurio Registry (Quarkus runner jar + lib/), unpacked once from Maven Central's tar.gz. */
export async function apicurioRunnerJar(cacheDir: string): Promise<string> {
  const folder = await cachedFolder(cacheDir, APICURIO_KEY, async (staging) => {
    await runMaven([`dependency:copy`, `-Dartifact=io.apicurio:apicurio-registry-app:${APICURIO_VERSION}:tar.gz:all`, `-DoutputDirectory=${staging}`], staging);
    const archive = join(staging, `apicurio-registry-app-${APICURIO_VERSION}-all.tar.gz`);
    await run('tar', ['-xzf', archive, '-C', staging]);
    rmSync(archive);
  });
  const jar = join(folder, `apicurio-registry-app-${APICURIO_VERSION}-runner.jar`);
  if (!existsSync(jar)) throw new Error(`${jar} is missing: remove ${folder} to unpack Apicurio Registry again`);
  return jar;
}
