// Test-only: what the tests try on a Volume (its descriptor's `badInputs` and `recorded`).
import type { BadInput, RecordedState } from "../../shared/resource-descriptor";

/** Bad input as a new user writes it. */
export function volumeBadInputs(): readonly BadInput[] {
  return [
    {
      what: "wrong types",
      args: { askId: "abc", sizeGb: 1.5 },
      cases: [
        { field: "askId", says: /askId: expected a number, received a string of 3 characters/ },
        { field: "sizeGb", says: /sizeGb: expected a whole number, received 1\.5/ },
      ],
    },
    {
      what: "a number given as a string, a negative ask",
      args: { askId: -3, sizeGb: "40" },
      cases: [
        { field: "askId", says: /askId: must be positive; got -3/ },
        { field: "sizeGb", says: /sizeGb: expected a number, received a string holding a number/ },
      ],
    },
    {
      what: "missing ask, zero size",
      args: { sizeGb: 0 },
      cases: [
        { field: "askId", says: /askId: required: the id of a volume ask/ },
        { field: "sizeGb", says: /sizeGb: must be positive; got 0/ },
      ],
    },
    {
      what: "forInstance with an unknown query field",
      args: { askId: 21001, forInstance: { offerQuery: { gpuRam: 24 } } },
      cases: [
        {
          field: "forInstance.offerQuery",
          says: /^forInstance\.offerQuery: gpuRam: not a field of instance offer queries; did you mean gpuRamGb\? the fields are gpuName, /,
        },
      ],
    },
    {
      what: "forInstance without its query",
      args: {
        volumeOfferQuery: { reliability: { gte: 0.9 } },
        forInstance: { maxDollarsPerHour: 2 },
      },
      cases: [
        {
          field: "forInstance.offerQuery",
          says: /^forInstance\.offerQuery: must be a query object .* \(received nothing\)$/,
        },
      ],
    },
    {
      what: "a misspelled cap for its instance, a misspelled size",
      args: {
        askId: 21001,
        sizeGB: 40,
        forInstance: { offerQuery: { gpuName: "RTX 4090" }, maxDollarPerHour: 2 },
      },
      cases: [
        { field: "sizeGB", says: /^sizeGB: not an input of Volume; did you mean sizeGb\?$/ },
        {
          field: "forInstance.maxDollarPerHour",
          says: /^forInstance\.maxDollarPerHour: not a field of forInstance; did you mean maxDollarsPerHour\?$/,
        },
      ],
    },
    {
      what: "more than the ask offers",
      args: { askId: 21001, sizeGb: 5000 },
      cases: [
        {
          field: "sizeGb",
          says: /sizeGb: 5000 GB is more than ask 21001 offers \(100 GB disk_space\)/,
        },
      ],
    },
  ];
}

/** A volume by ask and one by query, as their states record them. */
export function volumeRecorded(): readonly RecordedState[] {
  return [
    { olds: { askId: 1, sizeGb: 15, volumeName: "V.5", volumeId: 5 } },
    {
      olds: {
        volumeOfferQuery: { geolocation: "US" },
        sizeGb: 15,
        volumeName: "V.5",
        volumeId: 5,
        offer: { askId: 1, diskSpaceGb: 100, geolocation: "US", reliability: 0.99 },
      },
      changes: {
        volumeOfferQuery: [{ geolocation: "US", reliability: { gte: 0.9 } }, { geolocation: "CA" }],
      },
    },
  ];
}
