export * from "./auth";
export * from "./notes";
export * from "./imports";
export * from "./graph";
export * from "./events";
export * from "./files";
export * from "./ask";
export * from "./tokens";
