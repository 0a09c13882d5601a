export * from "./auth";
export * from "./notes";
export * from "./imports";
