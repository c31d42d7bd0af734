import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

// kustomize is not on npm, so the tests render deploy/ themselves, the small part of it the overlays use:
// a kustomization's `resources` (files, or a folder with its own kustomization), `patches` as strategic
// merges matched by kind and name (maps merged, lists of named items merged by name, other lists
// replaced), `namespace` set on every object, and `labels` added to every object's metadata.

export type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [field: string]: unknown };

type Kustomization = {
  resources?: string[];
  patches?: { path: string }[];
  namespace?: string;
  labels?: { pairs: Record<string, string> }[];
};

const readDocuments = (file: string): Manifest[] =>
  parseAllDocuments(readFileSync(file, 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0].message}`);
    return document.toJS() as Manifest;
  });

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNamedList = (value: unknown): value is { name: string }[] => Array.isArray(value) && value.every((item) => isMap(item) && typeof item.name === 'string');

/** `patch` merged into `base` the strategic-merge way for the shapes above; a copy. */
export function strategicMerge(base: unknown, patch: unknown): unknown {
  if (isMap(base) && isMap(patch)) {
    const out: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(patch)) out[key] = key in base ? strategicMerge(base[key], value) : value;
    return out;
  }
  if (isNamedList(base) && isNamedList(patch)) {
    const merged = base.map((item) => {
      const over = patch.find((candidate) => candidate.name === item.name);
      return over ? strategicMerge(item, over) : item;
    });
    return [...merged, ...patch.filter((item) => !base.some((candidate) => candidate.name === item.name))];
  }
  return patch;
}

/** Every object the kustomization in `folder` renders. */
export function renderKustomization(folder: string): Manifest[] {
  const kustomization = readDocuments(join(folder, 'kustomization.yaml'))[0] as unknown as Kustomization;
  let objects = (kustomization.resources ?? []).flatMap((resource) => {
    const path = join(folder, resource);
    return resource.endsWith('.yaml') ? readDocuments(path) : renderKustomization(path);
  });
  for (const { path } of kustomization.patches ?? []) {
    for (const patch of readDocuments(join(folder, path))) {
      const index = objects.findIndex((object) => object.kind === patch.kind && object.metadata.name === patch.metadata.name);
      if (index < 0) throw new Error(`${join(folder, path)}: patches ${patch.kind} ${patch.metadata.name}, which ${folder} does not have`);
      objects = objects.map((object, i) => (i === index ? (strategicMerge(object, patch) as Manifest) : object));
    }
  }
  const labels = Object.assign({}, ...(kustomization.labels ?? []).map((entry) => entry.pairs)) as Record<string, string>;
  return objects.map((object) => ({
    ...object,
    metadata: { ...object.metadata, ...(kustomization.namespace ? { namespace: kustomization.namespace } : {}), labels: { ...object.metadata.labels, ...labels } },
  }));
}

export const kustomizationFolder = (root: string, overlay: string): string => join(root, 'deploy', 'overlays', overlay);
