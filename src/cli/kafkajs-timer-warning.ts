/**
 * kafkajs 2.2.4 hands setTimeout a negative delay on every connection (tulios/kafkajs#1751, unreleased fix):
 * Node 24 prints a TimeoutNegativeWarning for it on stderr, Node 20 printed nothing, and the delay is 1 ms
 * either way. The CLI's stderr carries its own messages only (scripts read it), so that one warning, when
 * raised inside kafkajs, is left out; every other warning reaches Node's own printer as before.
 */
export function omitKafkajsTimerWarning(): void {
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'TimeoutNegativeWarning' && /[\\/]kafkajs[\\/]/.test(warning.stack ?? '')) return;
    for (const print of printers) print(warning);
  });
}
