// Type-checked by `npm test` (tsc -p tsconfig.json): what the resource classes' types accept and
// refuse, as their users meet them. Each @ts-expect-error fails the check when its line compiles.
import type { z } from "zod";
import * as gpucloud from "../../provider";
import type { instanceInputsSchema } from "../../provider/renting/instance-inputs";

const instance = new gpucloud.Instance("a", {
  offerQuery: { gpuRamGb: { gte: 24 } },
  image: "pytorch/pytorch",
  diskGb: 40,
});
// Every input is also an output; the offer has every field a search answers.
export const disk: gpucloud.Instance["diskGb"] = instance.diskGb;
export const image = instance.image;
export const where = instance.offer.apply((offer) => offer?.geolocation);
instance.offer.apply((offer) => {
  // @ts-expect-error a misspelled field of the offer
  const misspelled: unknown = offer?.geolocationn;
  return misspelled;
});

// @ts-expect-error neither an offer nor an image
new gpucloud.Instance("b", {});
// @ts-expect-error an ask and a query at once
new gpucloud.Instance("c", { askId: 1, offerQuery: {}, image: "x", diskGb: 10 });
// @ts-expect-error an image without a disk
new gpucloud.Instance("d", { askId: 1, image: "x" });
// A template provides the image and the disk.
new gpucloud.Instance("e", { askId: 1, templateHashId: "h" });
// @ts-expect-error a misspelled query field, named in InstanceOfferQuery
new gpucloud.Instance("f", { offerQuery: { gpuRamGB: 24 }, image: "x", diskGb: 10 });

// The same for a group and a volume: inputs read back, as applied.
const group = new gpucloud.NodeGroup("g", {
  nodeCount: 2,
  offerQuery: { gpuName: "H100 SXM" },
  image: "pytorch/pytorch",
  diskGb: 40,
});
export const groupImage: gpucloud.NodeGroup["image"] = group.image;
const volume = new gpucloud.Volume("v", { volumeOfferQuery: { reliability: { gte: 0.98 } } });
export const volumeQuery = volume.volumeOfferQuery;
export const volumeSize: gpucloud.Volume["sizeGb"] = volume.sizeGb;

// Every input a program may give an Instance is in the class's arguments, which are written by
// hand for their either-or choices (they once missed onOutbid and prepayDollars).
type InstanceClassArgs = NonNullable<ConstructorParameters<typeof gpucloud.Instance>[1]>;
type InstanceKeys = InstanceClassArgs extends infer U
  ? U extends unknown
    ? keyof U
    : never
  : never;
type MissingInstanceInputs = Exclude<
  keyof z.input<typeof instanceInputsSchema>,
  // Hidden: the class fills them in (replaceOnChanges from the resource option).
  InstanceKeys | "owner" | "stackToken" | "replaceOnChanges"
>;
export const everyInstanceInput: [MissingInstanceInputs] extends [never]
  ? true
  : MissingInstanceInputs = true;
