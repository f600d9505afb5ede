/**
 * Server processes working the shared queues (migration 033, src/platform/instances/). Owned by the
 * platform's instance registry: nothing else writes it.
 */
export interface InstancesTable {
  /** The instance's identity: INSTANCE_ID, or host:port, or host:pid:random (src/platform/instances/identity.ts). */
  id: string;
  host: string;
  pid: number;
  started_at: number;
  /** The database's clock (ms) at the instance's last heartbeat, so hosts' clocks need not agree. */
  heartbeat_at: number;
}

export interface InstanceTables {
  instances: InstancesTable;
}
