// @platformatic/kafka reports a failure as a tree: "Listing topics failed." over "listTopics failed 3
// times." over the broker's or the connection's own errors. These read the tree's leaves, where the
// reason is (the broker's error name in `apiId`, its message in `serverErrorMessage`).

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

const withoutFullStop = (text: string): string => text.trim().replace(/\.$/, '');

/** Read by shape, not `instanceof Error`: an error from another realm (a test runner's sandbox) is an error too. */
const messageOf = (error: unknown): string => (typeof (error as { message?: unknown } | null)?.message === 'string' ? (error as { message: string }).message : String(error));

/** One line: the top message, then each distinct reason below it (the broker's own messages included). */
export function explainKafkaError(error: unknown): Error {
  const top = withoutFullStop(messageOf(error));
  const reasons = [
    ...new Set(
      leafErrors(error).map((leaf) => {
        const name = leaf.apiId === undefined ? '' : `${leaf.apiId}: `;
        return withoutFullStop(`${name}${leaf.serverErrorMessage ?? leaf.message ?? ''}`);
      }),
    ),
  ].filter((reason) => reason !== '' && reason !== top);
  if (reasons.length === 0) return typeof error === 'object' && error !== null ? (error as Error) : new Error(top);
  return new Error(`${top}: ${reasons.join('; ')}`, { cause: error });
}
