import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { checkPasswordPolicy } from "../auth/password";
import { AppError } from "../errors";
import { parseInput } from "./parse";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, PASSWORD_RULES, passwordProblem } from "./password-rules";
import { setPasswordInput } from "./users";

/** What the server says about a password, through the schema the set-password paths parse with. */
const schemaSays = (password: string) => {
  try {
    parseInput(setPasswordInput, { password });
    return undefined;
  } catch (err) {
    assert.ok(err instanceof AppError);
    return err.fieldErrors.find((e) => e.field === "password")?.message;
  }
};
const policySays = (password: string) => {
  try {
    checkPasswordPolicy(password);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof AppError);
    return err.fieldErrors[0]?.message;
  }
};

describe("password rules shared by the forms and the server", () => {
  const samples = [
    "",
    "short",
    "x".repeat(PASSWORD_MIN_LENGTH - 1),
    "x".repeat(PASSWORD_MIN_LENGTH),
    "correct horse battery staple",
    "x".repeat(PASSWORD_MAX_LENGTH),
    "x".repeat(PASSWORD_MAX_LENGTH + 1),
  ];

  test("the form's check, the API schema and the first-admin policy agree on every sample", () => {
    for (const p of samples) {
      assert.equal(schemaSays(p), passwordProblem(p), `schema, length ${p.length}`);
      assert.equal(policySays(p), passwordProblem(p), `policy, length ${p.length}`);
    }
  });

  test("each rule the form lists is one the server enforces", () => {
    assert.equal(passwordProblem("x".repeat(PASSWORD_MIN_LENGTH - 1)), PASSWORD_RULES[0]!.message);
    assert.equal(passwordProblem("x".repeat(PASSWORD_MAX_LENGTH + 1)), PASSWORD_RULES[1]!.message);
    assert.equal(passwordProblem("correct horse battery staple"), undefined);
    assert.match(PASSWORD_RULES[0]!.label, new RegExp(`${PASSWORD_MIN_LENGTH} characters`));
  });
});
