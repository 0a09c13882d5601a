import { describe, expect, test } from "bun:test";
import { protocolErrors } from "../../../fixtures/graph-eval/protocol-check";

describe("graph evaluation notes follow the labelling protocol", () => {
  test("every listed concept has a form written in its note, every id is defined, no never-word is a concept form", () => {
    expect(protocolErrors()).toEqual([]);
  });
});
