/** The Postgres store's URL handling: what it shows, and the password it keeps out of messages. */
import { describe, expect, it } from "vitest";
import { postgresTarget, storeFailed } from "./connection.js";

describe("postgresTarget", () => {
  it("scrubs a password given as the URL's `password` parameter (node-postgres uses it first)", () => {
    const target = postgresTarget("postgres://ocb@db.example:5432/ocb?password=s3cret-in-query");
    expect(target.description).not.toContain("s3cret-in-query");
    const failed = storeFailed(target, "append", new Error("the server said s3cret-in-query"));
    expect(failed.message).not.toContain("s3cret-in-query");
    expect(String((failed as Error & { cause?: unknown }).cause)).not.toContain("s3cret-in-query");
  });

  it("scrubs the password of the URL's authority", () => {
    const target = postgresTarget("postgres://ocb:p%40ss-word@db.example/ocb");
    expect(target.description).toBe("postgres://ocb@db.example/ocb");
    expect(storeFailed(target, "read", new Error("p@ss-word")).message).not.toContain("p@ss-word");
  });
});
