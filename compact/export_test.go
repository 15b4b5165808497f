package compact

// Exported for the property test's definition of "the pinned parts cannot
// fit": a message is at its floor when cutting it as far as [LevelCut]
// would cut it does not make it smaller.
var ShrinkMessage = shrinkMessage

const MinCutTokens = minCutTokens
