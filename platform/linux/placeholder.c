/* placeholder: replaced by the Linux backend */
#include "platform/platform.h"
