import { z } from "zod";
import { areaRecords } from "../shared/area-records";
import { BootOutcomeSchema, CopySchema, InstanceSchema, OverlaySchema } from "./instance-state";

/**
 * The account's instances, copies, queued boot outcomes and overlays in the state; the default
 * lets state files from before overlays load.
 */
export const records = areaRecords({
  shape: {
    instances: z.array(InstanceSchema),
    copies: z.array(CopySchema),
    bootQueue: z.array(BootOutcomeSchema),
    overlays: z.array(OverlaySchema).default([]),
  },
  firstIds: { instance: 1000001, overlay: 1 },
  idsSince: ["overlay"],
  initial: () => ({ instances: [], copies: [], bootQueue: [], overlays: [] }),
  clear: (instances) => {
    instances.instances = [];
    instances.copies = [];
    instances.bootQueue = [];
    instances.overlays = [];
  },
});
