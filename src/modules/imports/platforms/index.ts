import type { Platform } from "../schemas";
import { createBilibiliImporter } from "./bilibili";
import { douyinImporter } from "./douyin";
import type { PlatformImporter } from "./types";
import { webImporter } from "./web";
import { wechatImporter } from "./wechat";
import { xiaohongshuImporter } from "./xiaohongshu";

/** One importer per platform; Bilibili takes an optional SESSDATA cookie for subtitles. */
export function createImporters(options: { bilibiliSessdata?: string }): Record<Platform, PlatformImporter> {
  return {
    wechat: wechatImporter,
    xiaohongshu: xiaohongshuImporter,
    bilibili: createBilibiliImporter({ sessdata: options.bilibiliSessdata }),
    douyin: douyinImporter,
    web: webImporter,
  };
}
