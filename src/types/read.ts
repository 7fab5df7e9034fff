/** How `plan` and `apply` read the live state (`--refresh`, docs/plan.md "Incremental reads"). */
export type RefreshMode = 'auto' | 'full' | 'incremental';
export const REFRESH_MODES: readonly RefreshMode[] = ['auto', 'full', 'incremental'];

/** What the read of the live state did, for the plan's header (src/read/README.md). */
export interface LiveReadSummary {
  mode: 'full' | 'incremental';
  /** Why the read was full though `--refresh=auto` asked for an incremental one; absent otherwise. */
  fallback?: string;
  /** Requests the read sent (the history's included). */
  requests: number;
  /** Incremental: the time of the snapshot it started from (ISO 8601, the service's clock). */
  since?: string;
  /** Incremental: writes the change history listed since the snapshot (those of other environments left out). */
  calls?: number;
  /** Incremental: the lists read again (`role_assignments`, `users`), sorted; empty when nothing changed. */
  reread?: string[];
  /** Incremental: objects those lists held. */
  objects?: number;
  /** Whether a snapshot was kept for the next plan, or why not. */
  snapshot?: { saved: true } | { saved: false; why: string };
}
