import { z } from "zod";
import { areaRecords } from "../shared/area-records";
import { SEEDED_TEMPLATES, TemplateSchema } from "./template-state";

/** The account's templates and other users' public ones (the seeded ones stay on reset). */
export const records = areaRecords({
  shape: {
    templates: z.array(TemplateSchema).default(() => [...structuredClone(SEEDED_TEMPLATES)]),
  },
  firstIds: { template: 300001 },
  idsSince: ["template"],
  initial: () => ({ templates: [...structuredClone(SEEDED_TEMPLATES)] }),
  clear: (templates, { userId }) => {
    templates.templates = templates.templates.filter((t) => t.creatorId !== userId);
  },
});
