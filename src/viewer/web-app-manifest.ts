// The Web App Manifest (W3C): what makes `/` installable, and where shares from the phone's share
// sheet go (the Web Share Target's `share_target`, taken by the service worker at POST /share).
import { THEME_COLOUR, type Icon } from "./icons";

/** What a share may carry: the contract's list, which the app turns into imports, notes or uploads. */
export const SHARED_FILE_TYPES = ["image/*", "audio/*", "video/mp4", "application/pdf"];

export function webAppManifest(icons: Icon[]) {
  return {
    name: "Rhizome",
    short_name: "Rhizome",
    description: "Your notes, what you read and its knowledge graph",
    id: "/",
    start_url: "/",
    scope: "/",
    display: "standalone",
    theme_color: THEME_COLOUR,
    background_color: "#ffffff",
    icons: icons.map((icon) => ({ src: `/icons/${icon.name}`, sizes: `${icon.size}x${icon.size}`, type: "image/png", purpose: icon.purpose })),
    share_target: {
      action: "/share",
      method: "POST",
      enctype: "multipart/form-data",
      params: { title: "title", text: "text", url: "url", files: [{ name: "files", accept: SHARED_FILE_TYPES }] },
    },
  };
}
