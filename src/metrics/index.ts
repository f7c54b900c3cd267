// Prometheus metrics: one registry per process and the wrappers that feed it (README "Metrics").
export { createMetrics, secondsSince, type Metrics, type MetricsRole } from './registry.js';
export { instrumentStore, observeOrdersOf } from './store.js';
export { instrumentBus } from './bus.js';
export { instrumentMarket, instrumentRouter } from './venues.js';
export { createMetricsApp, httpMetrics, instrumentApp } from './http.js';
export { meteredGuard, type GuardMetricHooks } from './guard.js';
