// The constant the build writes in front of the worker's code in sw.js (publish/offline.py, write_service_worker).

/** One file the worker caches: its path under dist/, a hash of its bytes (null for a content-hashed name), its size. */
type OfflineEntry = [path: string, revision: string | null, size: number];

declare const MANIFEST: {
  version: string;
  offline: string;
  shell: OfflineEntry[];
  runtime: OfflineEntry[];
  runtimeBytes: number;
};

// What a service worker's global scope has beyond a worker's (lib.webworker.d.ts types `self` as a worker's only).
interface WorkerGlobalScope {
  readonly clients: Clients;
  readonly registration: ServiceWorkerRegistration;
  skipWaiting(): Promise<void>;
}

interface WorkerGlobalScopeEventMap {
  install: ExtendableEvent;
  activate: ExtendableEvent;
  fetch: FetchEvent;
  message: ExtendableMessageEvent;
}
