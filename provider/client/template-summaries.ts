import { z } from "zod";
import { parseEnvString, type Template } from "./templates";

/**
 * A template as getTemplates gives it: camelCase, units in names, never a password. The schema
 * type `TemplateSummary` of the native plugin; the TypeScript type.
 */
export const templateSummarySchema = z
  .object({
    templateId: z.number().int().describe("The service's numeric id of the template."),
    hashId: z
      .string()
      .nullable()
      .describe("The content hash instances launch from (an instance's `templateHashId`)."),
    name: z.string().nullable().describe("The template's name."),
    image: z.string().nullable().describe("The Docker image path, e.g. `vllm/vllm-openai`."),
    tag: z.string().nullable().describe("The image tag."),
    description: z.string().nullable().describe("The template's short description."),
    readme: z.string().nullable().describe("The template's longer documentation."),
    runtype: z
      .string()
      .nullable()
      .describe("How instances are launched from it: `ssh`, `jupyter` or `args`."),
    onstart: z.string().nullable().describe("Shell commands run when an instance starts."),
    env: z
      .record(z.string(), z.string())
      .describe("The environment variables of the template's env string, by name."),
    ports: z
      .array(z.string())
      .describe("The port mappings of the template's env string, as `host:container[/udp]`."),
    diskGb: z.number().nullable().describe("The recommended disk size, in gigabytes."),
    private: z.boolean().nullable().describe("Whether the template is private (not searchable)."),
    recommended: z.boolean().nullable().describe("Whether the service recommends the template."),
    useSsh: z.boolean().nullable().describe("Whether instances launched from it use SSH."),
    sshDirect: z.boolean().nullable().describe("Whether SSH connects directly, not via a proxy."),
    jupyterDirect: z
      .boolean()
      .nullable()
      .describe("Whether Jupyter connects directly, not via a proxy."),
    creatorId: z.number().int().nullable().describe("The id of the account that created it."),
    countCreated: z
      .number()
      .int()
      .nullable()
      .describe("How many instances have been created from it."),
    createdAt: z
      .number()
      .nullable()
      .describe("When it was created, in seconds since the Unix epoch."),
    recentCreateDate: z
      .number()
      .nullable()
      .describe("When an instance was last created from it, in seconds since the Unix epoch."),
    dockerLoginRepo: z
      .string()
      .nullable()
      .describe("The private registry it pulls from, if any (never the registry's password)."),
    extraFilters: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe(
        "The template's default machine filters as the service stores them (the API's field " +
          "names and units).",
      ),
  })
  .meta({
    pulumiType: "TemplateSummary",
    description:
      "A template as getTemplates answers it (never a registry password); units are in the " +
      "field names.",
  });
export type TemplateSummary = z.output<typeof templateSummarySchema>;

export function templateSummaryOf(row: Template): TemplateSummary {
  const { env, ports } = parseEnvString(row.env);
  return {
    templateId: row.id,
    hashId: row.hash_id ?? null,
    name: row.name ?? null,
    image: row.image ?? null,
    tag: row.tag ?? null,
    description: row.desc ?? null,
    readme: row.readme ?? null,
    runtype: row.runtype ?? null,
    onstart: row.onstart ?? null,
    env,
    ports,
    diskGb: row.recommended_disk_space ?? null,
    private: row.private ?? null,
    recommended: row.recommended ?? null,
    useSsh: row.use_ssh ?? null,
    sshDirect: row.ssh_direct ?? null,
    jupyterDirect: row.jup_direct ?? null,
    creatorId: row.creator_id ?? null,
    countCreated: row.count_created ?? null,
    createdAt: row.created_at ?? null,
    recentCreateDate: row.recent_create_date ?? null,
    dockerLoginRepo: row.docker_login_repo ?? null,
    extraFilters: row.extra_filters ?? null,
  };
}
