/**
 * @file saiversion.h
 * @brief The SAI release the subset matches (SAI v1.18.1 inc/saiversion.h).
 *        1.18.1 is the first release with SAI_STATS_MODE_NONE, which the
 *        subset uses; 1.18.0 lacks it.
 */
#ifndef __SAIVERSION_H_
#define __SAIVERSION_H_

#include "saitypes.h"

#define SAI_MAJOR 1
#define SAI_MINOR 18
#define SAI_REVISION 1

#define SAI_VERSION(major, minor, revision) (10000 * (major) + 100 * (minor) + (revision))

#define SAI_API_VERSION SAI_VERSION(SAI_MAJOR, SAI_MINOR, SAI_REVISION)

#endif /* __SAIVERSION_H_ */
