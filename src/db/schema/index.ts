export * from "./auth";
export * from "./notes";
