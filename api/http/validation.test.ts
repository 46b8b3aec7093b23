import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { ApiError, errorResponse } from "./errors.ts";
import { pageSchema, parseQuery, queryDecimal } from "./validation.ts";

const schema = z.object({ ...pageSchema, rating: queryDecimal(0, 5).optional() });

/** An app that answers its parsed query, or the error object. */
const app = new Hono()
  .get("/", (c) => c.json(parseQuery(c, schema)))
  .onError((error, c) => {
    if (error instanceof ApiError) return errorResponse(c, error);
    throw error;
  });

async function query(queryString: string) {
  const response = await app.request(`/?${queryString}`);
  return { status: response.status, body: await response.json() };
}

function refused(field: string) {
  return {
    status: 400,
    body: {
      error: {
        code: "invalid_request",
        message: expect.stringMatching(`^${field}: `),
        status: 400,
      },
    },
  };
}

describe("query parameters", () => {
  it("reads limit and offset in plain decimal digits, with their defaults", async () => {
    expect(await query("")).toEqual({ status: 200, body: { limit: 20, offset: 0 } });
    expect(await query("limit=16&offset=10")).toEqual({
      status: 200,
      body: { limit: 16, offset: 10 },
    });
    expect(await query("limit=100&offset=1000000")).toEqual({
      status: 200,
      body: { limit: 100, offset: 1_000_000 },
    });
  });

  it("refuses limit and offset in any other spelling, empty, or out of range", async () => {
    for (const field of ["limit", "offset"]) {
      for (const value of ["", " ", "0x10", "1e1", "+1", "-1", " 1", "1 ", "1.0", "1.5", "ten"]) {
        expect(await query(`${field}=${encodeURIComponent(value)}`), value).toEqual(refused(field));
      }
    }
    expect(await query("limit=0")).toEqual(refused("limit"));
    expect(await query("limit=101")).toEqual(refused("limit"));
    expect(await query("offset=1000001")).toEqual(refused("offset"));
  });

  it("reads a decimal number, and refuses one in any other spelling or empty", async () => {
    expect(await query("rating=4.5")).toEqual({
      status: 200,
      body: { limit: 20, offset: 0, rating: 4.5 },
    });
    for (const value of ["", "0x4", "4e0", "4.", ".5", " 4", "5.5", "-1"]) {
      expect(await query(`rating=${encodeURIComponent(value)}`), value).toEqual(refused("rating"));
    }
  });

  it("refuses a parameter given twice, even with the same value", async () => {
    expect(await query("limit=1&limit=2")).toEqual(refused("limit"));
    expect(await query("offset=0&offset=0")).toEqual(refused("offset"));
    expect(await query("limit=5&unknown=a&unknown=b")).toEqual(refused("unknown"));
  });
});
