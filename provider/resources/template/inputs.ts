import { z } from "zod";
import { compileInstanceOfferQuery, OfferQueryError } from "../../client";
import { normalizePort } from "../../client/templates";
import { withExample } from "../../shared/reference-examples";

// The template's inputs and outputs: what a program declares and what the stack records.

const envNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
// eslint-disable-next-line no-control-regex
const noControlCharacters = /^[^\u0000-\u001f\u007f]*$/;

/** A port mapping: a port (the same on both sides) or `host:container`, optionally `/udp`. */
const portSchema = z
  .union(
    [
      z
        .number()
        .int("a port is a whole number")
        .min(1, "ports are 1-65535")
        .max(65535, "ports are 1-65535"),
      z
        .string()
        .regex(
          /^[0-9]{1,5}(:[0-9]{1,5})?(\/(tcp|udp))?$/,
          'a port string is "host:container" or one port, optionally ending /udp or /tcp',
        ),
    ],
    {
      error:
        'each port is a number 1-65535 or a string "host:container", optionally ending /udp ' +
        '(e.g. 8000, "8080:80", "5353:5353/udp")',
    },
  )
  .transform((port) => normalizePort(String(port)))
  .refine(
    (port) =>
      port
        .replace(/\/udp$/, "")
        .split(":")
        .every((part) => Number(part) >= 1 && Number(part) <= 65535),
    "ports are 1-65535",
  );

/** The typed offer query (Instance.offerQuery's form) without order, limit or type. */
const searchFiltersSchema = z
  .union([z.string(), z.record(z.string(), z.unknown())], {
    error:
      "searchFilters must be an offer query object (fields such as cudaMaxGood) or a " +
      "query string, as Instance.offerQuery takes",
  })
  .superRefine((query, ctx) => {
    if (typeof query === "object") {
      const extra = ["order", "limit", "type"].filter((key) => query[key] !== undefined);
      if (extra.length > 0) {
        ctx.addIssue({
          code: "custom",
          message: `${extra.join(", ")} ${extra.length === 1 ? "is" : "are"} not a filter: a template stores machine filters only`,
        });
        return;
      }
    }
    try {
      compileInstanceOfferQuery(query);
    } catch (error) {
      if (!(error instanceof OfferQueryError)) throw error;
      ctx.addIssue({ code: "custom", message: error.message });
    }
  });

const requiredText = (what: string) =>
  z.custom<string>((value) => typeof value === "string" && value !== "", { message: what });

/** Private registry credentials; `password` is never shown (a Pulumi secret, see the class). */
const dockerLoginSchema = z.object(
  {
    repo: requiredText("the registry, a non-empty string such as docker.io or ghcr.io").describe(
      "The registry, e.g. `docker.io` or `ghcr.io`.",
    ),
    user: requiredText("the registry user name, a non-empty string").describe(
      "The registry user name.",
    ),
    // A custom check, so that no failure ever describes the value (zod's would show a number).
    password: requiredText("the registry access token or password, a non-empty string").describe(
      "An access token or password of the registry; stored only as a Pulumi secret and sent " +
        "only to the service.",
    ),
  },
  { error: "dockerLogin must be { repo, user, password }" },
);

export const templateInputsSchema = z.object({
  name: z
    .string({ error: "the template's name" })
    .trim()
    .min(1, "name must not be empty")
    .regex(noControlCharacters, "name must not contain control characters (newlines, tabs)")
    .describe("The template's name, not empty, without control characters."),
  image: z
    .string({ error: "the Docker image, e.g. vllm/vllm-openai" })
    .regex(/^\S+$/, "image must be a Docker image path with no spaces, e.g. vllm/vllm-openai")
    // The service launches `image:tag`: a tag inside image would be doubled.
    .refine(
      (image) => !/^[^@]*:[^/]*$/.test(image.slice(image.lastIndexOf("/") + 1)),
      "give the image's tag in tag, not in image (e.g. image vllm/vllm-openai, tag v0.6.3)",
    )
    .describe("The Docker image path, without its tag, e.g. `vllm/vllm-openai`."),
  tag: z
    .string({ error: "the image tag, e.g. latest" })
    .regex(
      /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/,
      "tag is a Docker tag: letters, digits, _, . and -, at most 128 characters",
    )
    .describe("The image tag; default `latest`.")
    .default("latest"),
  env: z
    .record(
      z.string().regex(envNamePattern, "env names hold letters, digits and _"),
      z
        .string({ error: "env values are strings" })
        .regex(
          /^\S*$/,
          "env values must not contain spaces (the service splits its env string at spaces)",
        ),
      { error: "env is an object of variable names to string values" },
    )
    .describe(
      "Environment variables of instances launched from the template: names of letters, " +
        "digits and `_`, values without spaces. Sent as the service's Docker-flag string " +
        "(`-e NAME=value`).",
    )
    .default({}),
  ports: z
    .array(portSchema, { error: 'a list of ports, e.g. [8000, "8080:80"]' })
    .describe(
      'Ports to map: a number (the same port on both sides), `"8080:80"` or ' +
        '`"5353:5353/udp"`. Recorded as `host:container[/udp]`.',
    )
    .default([]),
  onstart: z
    .string({ error: "the shell commands run when an instance starts" })
    .describe("Shell commands run when an instance starts.")
    .default(""),
  runtype: z
    .enum(["ssh", "jupyter", "args"], { error: "runtype must be ssh, jupyter or args" })
    .describe("How instances are launched: `ssh`, `jupyter` or `args` (the default).")
    .default("args"),
  args: z
    .string({ error: "the entrypoint's arguments, a string" })
    .describe("With runtype `args`: the arguments passed to the image's entrypoint.")
    .default(""),
  diskGb: z
    .number({ error: "the recommended disk size in GB" })
    .positive("diskGb must be positive (GB)")
    .describe("The recommended disk size in gigabytes; default 8.")
    .default(8),
  description: z
    .string({ error: "a short description" })
    .describe("A short description of the template.")
    .default(""),
  readme: z
    .string({ error: "longer documentation, a string" })
    .describe("Longer documentation of the template.")
    .default(""),
  private: z
    .boolean({ error: "private is true or false" })
    .describe("Whether the template is private: not publicly searchable; default true.")
    .default(true),
  sshDirect: z
    .boolean({ error: "sshDirect is true or false" })
    .describe("Whether instances take SSH connections directly, not via the service's proxy.")
    .default(false),
  useSsh: z
    .boolean({ error: "useSsh is true or false" })
    .describe("Whether instances launched from the template are reachable over SSH.")
    .default(false),
  jupyterDirect: z
    .boolean({ error: "jupyterDirect is true or false" })
    .describe("Whether instances take Jupyter connections directly, not via the service's proxy.")
    .default(false),
  jupyterDir: z
    .string({ error: "the directory Jupyter starts in, e.g. /workspace" })
    .describe("The directory Jupyter starts in, e.g. `/workspace`.")
    .default(""),
  useJupyterLab: z
    .boolean({ error: "useJupyterLab is true or false" })
    .describe("Whether Jupyter starts JupyterLab rather than the classic notebook.")
    .default(false),
  searchFilters: searchFiltersSchema
    .describe(
      "Default machine filters of instances launched from the template, in an instance's " +
        "offerQuery form (e.g. a CUDA version of at least 12.6 and at least 24 GB of GPU RAM, or " +
        "the official client's query string) without order, limit or type.",
    )
    .optional(),
  // Secret as a whole (the native plugin's schema marks it: provider/native/schema.ts).
  dockerLogin: dockerLoginSchema
    .meta({ secret: true })
    .describe("Credentials of a private registry; the whole value is a Pulumi secret.")
    .optional(),
});
export type TemplateInputs = z.infer<typeof templateInputsSchema>;

// Template's example on its reference page (docs/reference/Template.md): an image and a name: every
// other field has a default.
withExample(templateInputsSchema, {
  inputs: { name: "pytorch", image: "pytorch/pytorch" },
});

export const templateOutputsSchema = templateInputsSchema.extend({
  templateId: z
    .number()
    .int()
    .describe("The service's numeric id of the template; it never changes."),
  hashId: z
    .string()
    .describe(
      "The content hash instances launch from (an instance's `templateHashId`); every edit " +
        "changes it.",
    ),
});
export type TemplateOutputs = z.infer<typeof templateOutputsSchema>;
