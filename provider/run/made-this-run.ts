/**
 * What this run made, by kind. After a lost create reply, only a thing the account did not hold
 * before the run (run/shared-reads.ts) and that no other create of the run made can be that
 * create's.
 */
export class MadeThisRun {
  /** Volumes of either kind: Volume, NetworkVolume, a NodeGroup's network volume. */
  readonly volumeIds = new Set<number>();

  readonly sshKeyIds = new Set<number>();

  readonly apiKeyIds = new Set<number>();

  /** Templates this run created: a later create answered with one of them is refused. */
  readonly templateIds = new Set<number>();

  /**
   * The overlays this run has checked, by name: an Instance that names one is checked at
   * preview before the overlay exists (its name is known then, its create comes later), so its
   * check looks here before the account's list. The engine checks an Overlay before an Instance
   * that takes its `name` output.
   */
  readonly declaredOverlays = new Map<
    string,
    { clusterId: number | undefined; resourceName: string | undefined }
  >();
}
