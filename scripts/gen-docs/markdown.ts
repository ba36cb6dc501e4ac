/** Markdown: code spans, fences, tables, anchors, and text from the schema made safe. */

/** GitHub's anchor of a heading made of a name: lower-case (names hold no punctuation). */
export const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");

export const code = (text: string): string => `\`${text}\``;

/**
 * Text from the schema, made safe for Markdown: `<` outside code spans is not taken for HTML;
 * in a table cell, `|` does not end the cell (GitHub wants `\|` even in a code span) and a
 * newline does not end the row.
 */
export function prose(text: string, inCell = false): string {
  const escaped = text
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith("`") ? part : part.replace(/</g, "&lt;")))
    .join("");
  return inCell ? escaped.replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>") : escaped;
}

export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

export const yesNo = (value: boolean | undefined): string => (value === true ? "yes" : "no");

/** The first sentence of a description, for the index ("e.g." does not end one). */
export function firstSentence(text: string): string {
  const match = /^([\s\S]*?(?<!\be\.g|\bi\.e)\.)(?:\s|$)/.exec(text);
  return (match?.[1] ?? text).replace(/\s+/g, " ");
}

export const fence = (language: string, lines: readonly string[]): string =>
  ["```" + language, ...lines, "```"].join("\n");
