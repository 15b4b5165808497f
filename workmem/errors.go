package workmem

import "errors"

// ErrInvalidState reports that data given to [FromJSON] is not a working
// memory this package wrote: not JSON, an unknown version, or values out of
// range. Nothing was restored; start a fresh [ActiveContext] with [New].
var ErrInvalidState = errors.New("workmem: invalid state")

// ErrNoStep reports that [ActiveContext.MarkStep] named a step the current
// plan does not have (or that there is no plan). The plan is unchanged.
var ErrNoStep = errors.New("workmem: no such plan step")

// ErrInvalidStatus reports a [StepStatus] that is not one of the declared
// constants. The plan is unchanged.
var ErrInvalidStatus = errors.New("workmem: invalid step status")
