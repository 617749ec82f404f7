// JSON for data placed among our own markup: no string in it can close a tag or open a new one.

/**
 * `JSON.stringify`, with every character matching `escaped` inside string literals written as a \u escape
 * (still valid JSON). With the default `<`, `>` and `&`, text such as `</context><task>` cannot appear in the
 * output; a quote or line break in a value cannot end its field or forge another entry either way.
 */
export function inertJson(value: unknown, escaped: RegExp = /[<>&]/g, space?: number): string {
  return JSON.stringify(value, null, space).replace(/"(?:[^"\\]|\\.)*"/g, (literal) =>
    literal.replace(escaped, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}
