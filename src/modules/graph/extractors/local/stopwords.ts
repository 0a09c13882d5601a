/** Words that never start, end or sit inside a key phrase (lowercase), and words too vague to stand alone. */

const ENGLISH = `
a about above across actually after afterwards again against ago all almost alone along already also although
always am among amongst an and another any anybody anyhow anyone anything anyway anywhere are aren't around as
at away back basically be became because become becomes becoming been before beforehand behind being below
beside besides best better between beyond both briefly but by can can't cannot certain certainly clearly could
couldn't currently definitely did didn't do does doesn't doing don't done down during e.g each easily easy eg
either else elsewhere enough entirely especially etc even eventually ever every everybody everyone everything
everywhere exactly except fairly far few finally first for former formerly from further furthermore generally
get gets getting give given gives giving go goes going gone good got gotten great had hadn't hardly has hasn't
have haven't having he he'd he'll he's hence her here here's hers herself him himself his how however i i'd
i'll i'm i've i.e ie if in indeed instead into is isn't it it'd it'll it's its itself just kind last later
latter least less let let's like likely lot lots made mainly make makes making many may maybe me meanwhile
might mine more moreover most mostly much must my myself namely nearly need needed needs neither never
nevertheless new next nice no nobody none nor not nothing now nowhere obviously of off often oh ok okay on once
one ones only onto or other others otherwise ought our ours ourselves out over overall own per perhaps please pretty
probably quite rather really recently same say said says second see seem seemed seeming seems seen several
shall she she'd she'll she's should shouldn't simply since slightly so some somebody somehow someone something
sometime sometimes somewhat somewhere soon still such sure than that that's the their theirs them themselves
then thence there there's thereafter thereby therefore therein these they they'd they'll they're they've
thing things third this those though through throughout thru thus to today together tomorrow tonight yesterday morning mornings afternoon evening evenings night nights noon midnight dawn dusk monday tuesday wednesday thursday friday saturday sunday january february april june july august september october november december too took toward
towards truly under unless until up upon us use used uses using usually very via vs was wasn't we we'd we'll
we're we've well went were weren't what what's whatever when whence whenever where where's whereas whereby
wherever whether which while whither who who's whoever whole whom whose why will with within without won't
would wouldn't yeah yes yesterday yet you you'd you'll you're you've your yours yourself yourselves
able add added adds allow allowed allows almost anyways apply applied ask asked call called came come comes
consider considered different does easier feel felt find finds follow followed following follows found gave
happen happens help helps important include included includes including keep keeps kept know knew known
knows leave left little look looked looks main mean means meant simple show showed shown
shows start started starts take taken takes taking tell think thinks told tried tries try trying turn turns
want wanted wants work works worked
two three four five six seven eight nine ten hundred thousand million billion
`;

const CHINESE = `
的 了 是 在 和 与 及 或 也 都 就 还 又 把 被 让 给 对 从 向 到 为 以 于 而 但 却 并 很 太 更 最 不 没 有 这 那
它 他 她 你 我 们 个 之 其 此 等 用 做 说 看 会 能 要 将 已 去 来 上 下 中 里 后 前 时 吗 呢 吧 啊 呀 嘛 着 过 得
地 所 如 若 即 则 便 每 各 某 该 哪 谁 啥 么 些 次 种 样 位 只 才 再 既 因 故 由 跟 同 比 被 与 之 乃 而且 并且
我们 你们 他们 她们 它们 咱们 自己 这个 那个 这些 那些 这样 那样 这种 那种 这里 那里 这么 那么 一个 一些
一种 一样 一直 一下 一点 一定 一起 一般 可以 可能 可是 没有 因为 所以 因此 于是 但是 然后 然而 不过 虽然 如果
基本 或者 以及 还是 还有 就是 只是 只有 不是 不会 不能 不要 不同 什么 怎么 怎样 如何 为什么 为何 已经 非常 比较
特别 觉得 认为 知道 现在 今天 明天 昨天 时候 所有 每个 其他 其它 另外 其中 之后 之前 以后 以前 之间 通过
进行 使用 需要 包括 利用 例如 比如 等等 主要 同时 对于 关于 由于 根据 作为 成为 得到 的话 而是 也是 都是 就会
应该 能够 必须 开始 出来 起来 很多 许多 之一 越来 越来越 当然 其实 确实 真的 还要 似乎 大概 也许 总是 经常 有些
有的 有时 有点 一边 首先 其次 最后 另一 接着 然後 这是 那是 就像 像是 来说 来看 写 读 想 听 走 吃 买 卖 问 叫 提 称 讲 指 爱 认 找 拿 放 送 带 住 坐 站 跑 在一起 一起 之中 当中 以上 以下 左右 之后 不仅 而已 罢了 出现 发现 表示 意味着
`;

/** Vague on their own, fine inside a phrase ("lecture notes", "地方政府"); never also in STOPWORDS, which would split the phrase. */
const WEAK_ALONE = `
note notes example examples idea ideas stuff bit part parts step steps time times way ways case cases point
points fact facts number numbers type types year years day days week weeks question questions result results
problem problems reason reasons people person list lists section sections page pages chapter chapters item items
summary overview introduction conclusion todo minute minutes hour hours seconds month months min mins
large long low small high big short answer answers difference differences
问题 时间 方法 内容 方式 过程 结果 原因 人们 笔记 总结 例子 部分 情况 东西 事情 地方 大家 方面 答案 区别 评论区
`;

function wordSet(list: string): ReadonlySet<string> {
  return new Set(list.split(/\s+/).filter((word) => word.length > 0));
}

export const STOPWORDS: ReadonlySet<string> = new Set([...wordSet(ENGLISH), ...wordSet(CHINESE)]);
export const WEAK_ALONE_WORDS: ReadonlySet<string> = wordSet(WEAK_ALONE);

/** Headings and titles that label a note's layout rather than a subject. */
export const GENERIC_LABELS: ReadonlySet<string> = wordSet(
  `untitled untitled-note notes note todo todos to-do draft drafts journal diary log misc miscellaneous summary
  overview introduction intro conclusion conclusions references reference links resources sources background
  appendix questions ideas thoughts takeaways highlights quotes tl;dr tldr update updates example examples tips
  tip warning important pros cons ingredients instructions method steps details description contents toc
  index inbox agenda minutes attendees outline abstract preface foreword glossary
  无标题 笔记 读书笔记 日记 随笔 草稿 待办 总结 小结 概述 简介 引言 前言 参考 参考资料 参考文献 备注 问题 思考
  结论 目录 附录 相关 链接 资源 摘要 要点 重点 心得 感想 注意 提示 例子 示例 步骤 材料 做法
  参会人 参会人员 与会人员 议程 纪要 会议纪要 待办事项 行动项`,
);
export const GENERIC_PHRASES: ReadonlySet<string> = new Set([
  "see also",
  "further reading",
  "next steps",
  "action items",
  "key points",
  "key takeaways",
  "open questions",
  "to do",
  "reading notes",
  "book notes",
  "meeting notes",
  "lecture notes",
  "daily note",
  "weekly review",
]);
