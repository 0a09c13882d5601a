// The layout worker: force-layout.ts off the main thread.
import { forceLayout } from "./force-layout";
import type { LayoutAnswer, LayoutRequest } from "./layout-protocol";

interface WorkerScope {
  onmessage: ((event: MessageEvent<LayoutRequest>) => void) | null;
  postMessage(message: LayoutAnswer, transfer: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;

scope.onmessage = (event) => {
  const positions = forceLayout(event.data);
  scope.postMessage({ positions }, [positions.buffer]);
};
