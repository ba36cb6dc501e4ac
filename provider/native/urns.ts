// What the plugin reads of a URN: `urn:pulumi:<stack>::<project>::<type>::<name>`.

/** A URN's parts. */
export function urnParts(urn: string): {
  stack: string;
  project: string;
  type: string;
  name: string;
} {
  const [head = "", project = "", qualifiedType = "", ...rest] = urn.split("::");
  return {
    stack: head.replace(/^urn:pulumi:/, ""),
    project,
    type: qualifiedType.split("$").pop() ?? "",
    name: rest.join("::"),
  };
}

/** The URN of the stack a resource's URN is in: its row holds the stack's own lines. */
export function stackUrnOf(urn: string): string {
  const { stack, project } = urnParts(urn);
  return `urn:pulumi:${stack}::${project}::pulumi:pulumi:Stack::${project}-${stack}`;
}
