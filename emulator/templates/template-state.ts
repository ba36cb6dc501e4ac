import { createHash } from "node:crypto";
import { z } from "zod";

/**
 * A template's content, under the service's wire names: what its create and edit bodies carry
 * (less the Docker password, kept apart) and what its content hash is computed over.
 */
export const TemplateContentSchema = z.object({
  name: z.string(),
  image: z.string(),
  tag: z.string(),
  /** Docker flags: `-e K=V -p 8000:8000`. */
  env: z.string(),
  onstart: z.string().nullable(),
  runtype: z.enum(["ssh", "jupyter", "args"]),
  ssh_direct: z.boolean(),
  use_ssh: z.boolean(),
  jup_direct: z.boolean(),
  jupyter_dir: z.string().nullable(),
  use_jupyter_lab: z.boolean(),
  docker_login_repo: z.string().nullable(),
  docker_login_user: z.string().nullable(),
  extra_filters: z.record(z.string(), z.unknown()),
  /** GB */
  recommended_disk_space: z.number(),
  desc: z.string().nullable(),
  readme: z.string().nullable(),
  readme_visible: z.boolean(),
  private: z.boolean(),
  args_str: z.string().nullable(),
  href: z.string().nullable(),
  repo: z.string().nullable(),
  volume_info: z.record(z.string(), z.unknown()).nullable(),
});
export type TemplateContent = z.infer<typeof TemplateContentSchema>;

export const TemplateSchema = z.object({
  id: z.int(),
  /** 32 lowercase hex digits, from the creator and the content. */
  hashId: z.string(),
  creatorId: z.int(),
  createdAtSeconds: z.number(),
  /** Instances created from it, and when the last one was (epoch seconds). */
  countCreated: z.int().nonnegative(),
  recentCreateDateSeconds: z.number().nullable(),
  /** On the service's recommended list (seeded templates only). */
  recommended: z.boolean(),
  content: TemplateContentSchema,
  /** Never answered by the API. */
  dockerLoginPass: z.string().nullable(),
});
export type Template = z.infer<typeof TemplateSchema>;

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, inner]) => [key, canonical(inner)]),
    );
  }
  return value;
}

/**
 * The content hash: the same content for the same creator gives the same hash. The Docker
 * password is left out: hashes are shared publicly, and a digest of a password would expose it.
 */
export function templateHash(creatorId: number, content: TemplateContent): string {
  return createHash("md5")
    .update(JSON.stringify(canonical({ creatorId, content })))
    .digest("hex");
}

export const TEMPLATE_DEFAULTS: Omit<TemplateContent, "name" | "image"> = {
  tag: "latest",
  env: "",
  onstart: null,
  runtype: "args",
  ssh_direct: false,
  use_ssh: false,
  jup_direct: false,
  jupyter_dir: null,
  use_jupyter_lab: false,
  docker_login_repo: null,
  docker_login_user: null,
  extra_filters: {},
  recommended_disk_space: 8,
  desc: null,
  readme: null,
  readme_visible: true,
  private: true,
  args_str: null,
  href: null,
  repo: null,
  volume_info: null,
};

function seeded(
  id: number,
  creatorId: number,
  countCreated: number,
  content: Partial<TemplateContent> & Pick<TemplateContent, "name" | "image">,
): Template {
  const full: TemplateContent = { ...TEMPLATE_DEFAULTS, private: false, ...content };
  return {
    id,
    hashId: templateHash(creatorId, full),
    creatorId,
    createdAtSeconds: 1735689600, // 2025-01-01
    countCreated,
    recentCreateDateSeconds: 1764547200, // 2025-12-01
    recommended: countCreated > 1000,
    content: full,
    dockerLoginPass: null,
  };
}

/** Public templates of other users, as the service lists beside the account's own. */
export const SEEDED_TEMPLATES: readonly Template[] = [
  seeded(100001, 62897, 15432, {
    name: "PyTorch (cuDNN Devel)",
    image: "pytorch/pytorch",
    tag: "2.4.0-cuda12.4-cudnn9-devel",
    runtype: "ssh",
    ssh_direct: true,
    use_ssh: true,
    recommended_disk_space: 32,
    desc: "PyTorch with CUDA and cuDNN development libraries",
  }),
  seeded(100002, 62897, 8210, {
    name: "vLLM",
    image: "vllm/vllm-openai",
    env: "-p 8000:8000 -e MODEL_ID=Qwen/Qwen3-8B",
    args_str: "--model Qwen/Qwen3-8B --port 8000",
    recommended_disk_space: 64,
    extra_filters: { cuda_max_good: { gte: 12.4 } },
    desc: "OpenAI-compatible LLM server",
  }),
  seeded(100003, 51234, 57, {
    name: "Ubuntu 22.04",
    image: "library/ubuntu",
    tag: "22.04",
    runtype: "ssh",
    use_ssh: true,
    desc: "A plain Ubuntu image with SSH",
  }),
];
