import type { Catalog } from '../catalog/catalog';
import type { FieldProblem } from '../../errors/codes';
import type { CreatePortInCommand } from './commands';

/**
 * A CreatePortIn must name a wholesale plan of the catalog, and add-on buckets only: the plan brings its
 * own primary bucket. Returns every problem found.
 */
export function catalogProblems(command: Pick<CreatePortInCommand, 'wholesalePlanId' | 'bucketRefId'>, catalog: Catalog): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!catalog.plans.has(command.wholesalePlanId)) {
    problems.push({ path: 'wholesalePlanId', reason: `names no wholesale plan of the catalog (${command.wholesalePlanId})` });
  }
  command.bucketRefId.forEach((id, i) => {
    const bucket = catalog.buckets.get(id);
    if (!bucket) problems.push({ path: `bucketRefId[${i}]`, reason: `names no bucket of the catalog (${id})` });
    else if (bucket.kind !== 'ADDON') {
      problems.push({ path: `bucketRefId[${i}]`, reason: `${id} is a ${bucket.kind} bucket: only add-on buckets may be listed, the plan brings its primary bucket` });
    }
  });
  return problems;
}
