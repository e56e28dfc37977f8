import { describe, expect, it } from "vitest";
import { REDACTED, RELATIVE_WORK, sanitize } from "./sanitize.js";

const directory = "/tmp/ocb work/proj";

describe("sanitize", () => {
  it("replaces the directory anywhere in strings, plain, URL-encoded and root-relative", () => {
    expect(
      sanitize(
        {
          cwd: directory,
          file: `${directory}/src/a.ts`,
          message: `cannot read ${directory}/b`,
          query: `?directory=${encodeURIComponent(directory)}`,
          path: "tmp/ocb work/proj",
          list: [directory],
        },
        { directory },
      ),
    ).toEqual({
      cwd: "<work>",
      file: "<work>/src/a.ts",
      message: "cannot read <work>/b",
      query: `?directory=${encodeURIComponent("<work>")}`,
      path: RELATIVE_WORK,
      list: ["<work>"],
    });
  });

  it("redacts values under secret-looking keys at any depth", () => {
    expect(
      sanitize(
        {
          provider: { demo: { options: { apiKey: "k1", baseURL: "http://x" } } },
          headers: { Authorization: "Basic abc", "x-other": "fine" },
          password: "p",
          token: "t",
          api_key: "k2",
        },
        { directory },
      ),
    ).toEqual({
      provider: { demo: { options: { apiKey: REDACTED, baseURL: "http://x" } } },
      headers: { Authorization: REDACTED, "x-other": "fine" },
      password: REDACTED,
      token: REDACTED,
      api_key: REDACTED,
    });
  });

  it("redacts known secret values inside any string, but not too-short ones", () => {
    const result = sanitize(
      { title: "the key is sk-12345 ok", short: "abc" },
      { directory, secrets: ["sk-12345", "abc"] },
    );
    expect(result).toEqual({ title: `the key is ${REDACTED} ok`, short: "abc" });
  });

  it("leaves numbers, booleans and null alone and does not change its input", () => {
    const input = { n: 1, b: true, z: null, s: directory };
    expect(sanitize(input, { directory })).toEqual({ n: 1, b: true, z: null, s: "<work>" });
    expect(input.s).toBe(directory);
  });
});

describe("sanitize: root-relative paths", () => {
  it("replaces the root-relative form of a path inside the directory", () => {
    expect(sanitize({ patterns: ["tmp/ocb work/proj/hello.txt"] }, { directory })).toEqual({
      patterns: [`${RELATIVE_WORK}/hello.txt`],
    });
  });
});
