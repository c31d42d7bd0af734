export type Properties = Readonly<Record<string, string | number | boolean>>;

// java.util.Properties escaping: backslash and line breaks anywhere; separators, comment marks and spaces in keys;
// a leading space in a value.
const escapeCommon = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
const escapeKey = (key: string): string => escapeCommon(key).replace(/([=: #!])/g, '\\$1');
const escapeValue = (value: string): string => escapeCommon(value).replace(/^ /, '\\ ');

/** Renders a Java .properties file, one `key=value` line per entry, in the given order. */
export function renderProperties(properties: Properties): string {
  return Object.entries(properties)
    .map(([key, value]) => `${escapeKey(key)}=${escapeValue(String(value))}`)
    .join('\n')
    .concat('\n');
}
