/** The cluster secret of the test clusters (not the clients' token: a client's token is no sidecar's). */
export const CLUSTER_SECRET = "test-cluster-secret-0123456789";
