import { ConfigError } from "@svc/schema";
import { describe, expect, it } from "vitest";
import { parseFilesConfig } from "../src/index.js";

describe("parseFilesConfig", () => {
  it("defaults to local files under /api/files with a 50 MiB limit", () => {
    expect(parseFilesConfig({})).toStrictEqual({
      provider: "local",
      dir: undefined,
      urlPrefix: "/api/files",
      maxBytes: 50 * 1024 * 1024,
      allowedContentTypes: undefined,
      s3: undefined,
    });
  });

  it.each(["SVC_S3_BUCKET", "SVC_S3_ACCESS_KEY", "SVC_S3_SECRET_KEY"])(
    "refuses s3 without %s, naming it (never falling back to local disk)",
    (missing) => {
      const env: Record<string, string> = {
        SVC_FILES_PROVIDER: "s3",
        SVC_S3_BUCKET: "b",
        SVC_S3_ACCESS_KEY: "k",
        SVC_S3_SECRET_KEY: "s",
      };
      delete env[missing];
      expect(() => parseFilesConfig(env)).toThrow(ConfigError);
      expect(() => parseFilesConfig(env)).toThrow(new RegExp(`^${missing}: `));
    },
  );

  it("reads the s3 settings, path-style endpoint and defaults", () => {
    const config = parseFilesConfig({
      SVC_FILES_PROVIDER: "s3",
      SVC_S3_BUCKET: "b",
      SVC_S3_ACCESS_KEY: "k",
      SVC_S3_SECRET_KEY: "s",
      SVC_S3_ENDPOINT: "http://127.0.0.1:9000/",
    });
    expect(config.s3).toStrictEqual({
      bucket: "b",
      accessKeyId: "k",
      secretAccessKey: "s",
      sessionToken: undefined,
      region: "us-east-1",
      endpoint: "http://127.0.0.1:9000",
    });
  });

  it.each([
    ["SVC_FILES_PROVIDER", "hosted"],
    ["SVC_FILES_URL_PREFIX", "/files"],
    ["SVC_FILES_URL_PREFIX", "/api/../x"],
    ["SVC_FILES_MAX_BYTES", "lots"],
  ])("refuses %s=%s", (name, value) => {
    expect(() => parseFilesConfig({ [name]: value })).toThrow(new RegExp(`^${name}: `));
  });
});
