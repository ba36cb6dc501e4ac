// Test-only: what the tests try on a NetworkVolume (its descriptor's `badInputs` and `recorded`).
import type { BadInput, RecordedState } from "../../shared/resource-descriptor";

/** Bad input as a new user writes it. */
export function networkVolumeBadInputs(): readonly BadInput[] {
  return [
    {
      what: "0 GB",
      args: { askId: 25001, sizeGb: 0 },
      cases: [{ field: "sizeGb", says: /sizeGb: must be positive; got 0/ }],
    },
  ];
}

/** A network volume by ask and one by query, as their states record them. */
export function networkVolumeRecorded(): readonly RecordedState[] {
  return [
    {
      olds: {
        askId: 25001,
        sizeGb: 100,
        name: "data",
        volumeId: 5001,
        volumeName: "V.5001",
        clusterId: 7,
        offerAskId: 25001,
      },
    },
    // By query: kept while its offer matches the query.
    {
      olds: {
        offerQuery: { clusterId: 7 },
        sizeGb: 100,
        volumeId: 5001,
        volumeName: "V.5001",
        clusterId: 7,
        offerAskId: 25001,
        offer: { askId: 25001, diskSpaceGb: 1000, clusterId: 7, storageCostPerGbMonth: 0.12 },
      },
      changes: {
        offerQuery: [{ clusterId: 7, storageCostPerGbMonth: { lte: 1 } }, { clusterId: 101 }],
      },
    },
  ];
}
