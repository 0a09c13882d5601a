// The service worker (/sw.js) is registered once the page has loaded, so it never competes with the
// first notes for the network. A new bundle is a new worker, which takes over at once: the next load
// runs the new app. A page left open looks for one when it comes back into view.
export function keepUpToDate(): void {
  if (!("serviceWorker" in navigator)) return;
  const register = () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(
      (registration) => {
        document.addEventListener("visibilitychange", () => {
          if (document.visibilityState === "visible") void registration.update().catch(() => {});
        });
      },
      () => {
        // No worker (a browser that refuses it, a private window): the app works online as before.
      },
    );
  };
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}
