/**
 * @platformatic/kafka reports a failure as a tree: "Listing topics failed." over "listTopics failed 3
 * times." over the broker's or the connection's own errors. These read the tree's leaves, where the
 * reason is (the broker's error name in `apiId`, its message in `serverErrorMessage`).
 */
interface KafkaErrorNode {
  message?: string;
  apiId?: string;
  serverErrorMessage?: string | null;
  errors?: unknown[];
  cause?: unknown;
}

/** The reasons at the bottom of the tree: errors carrying no list of others, each followed by its causes. */
export function leafErrors(error: unknown): KafkaErrorNode[] {
  if (error === null || typeof error !== 'object') return [{ message: String(error) }];
  const node = error as KafkaErrorNode;
  if (Array.isArray(node.errors) && node.errors.length > 0) return node.errors.flatMap(leafErrors);
  return node.cause === undefined ? [node] : [node, ...leafErrors(node.cause)];
}

/** The broker's error names anywhere in the tree (e.g. TOPIC_ALREADY_EXISTS). */
export const brokerErrorNames = (error: unknown): string[] => leafErrors(error).flatMap((leaf) => (leaf.apiId === undefined ? [] : [leaf.apiId]));

/** One line: the top message and, after it, each distinct reason below (broker messages included). */
export function explainKafkaError(error: unknown): Error {
  const top = error instanceof Error ? error.message : String(error);
  const reasons = [
    ...new Set(
      leafErrors(error).map((leaf) => {
        const name = leaf.apiId === undefined ? '' : `${leaf.apiId}: `;
        return `${name}${leaf.serverErrorMessage ?? leaf.message ?? ''}`.trim();
      }),
    ),
  ].filter((reason) => reason !== '' && reason !== top);
  return reasons.length === 0 ? (error instanceof Error ? error : new Error(top)) : new Error(`${top} ${reasons.join('; ')}`, { cause: error });
}
