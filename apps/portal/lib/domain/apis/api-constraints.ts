import type { FieldError } from "../../errors";

/** The streaming_apis constraints (packages/db) as the field each one is about. */
export const API_CONSTRAINTS: Record<string, FieldError> = {
  streaming_apis_name_version_key: {
    field: "version",
    message: "an API with this name already has this version; choose another version or name",
  },
  streaming_apis_name_length: { field: "name", message: "must be 1–100 characters" },
  streaming_apis_version_format: {
    field: "version",
    message: "must start with a letter or digit and use only letters, digits and . _ + -",
  },
  streaming_apis_owner_id_users_id_fk: { field: "ownerId", message: "is not a user of this portal" },
};
