/*
 * SPDX-License-Identifier: Apache-2.0
 */

#include "buffer-scheme.h"

#include "shared-buffer.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <cctype>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BufferScheme");
NS_OBJECT_ENSURE_REGISTERED(BufferScheme);

TypeId
BufferScheme::GetTypeId()
{
    static TypeId tid = TypeId("ns3::BufferScheme").SetParent<Object>().SetGroupName("Alphad");
    return tid;
}

BufferScheme::BufferScheme() : m_buffer(nullptr)
{
    NS_LOG_FUNCTION(this);
}

BufferScheme::~BufferScheme()
{
    NS_LOG_FUNCTION(this);
}

bool
BufferScheme::LookupByShortName(const std::string& name, TypeId* tid)
{
    std::string type = "ns3::";
    bool upper = true;
    for (char c : name)
    {
        if (c == '-')
        {
            upper = true;
            continue;
        }
        if (!std::islower(static_cast<unsigned char>(c)) &&
            !std::isdigit(static_cast<unsigned char>(c)))
        {
            return false; // short names are lower case
        }
        type.push_back(upper ? char(std::toupper(static_cast<unsigned char>(c))) : c);
        upper = false;
    }
    type += "BufferScheme";
    TypeId found;
    if (name.empty() || !TypeId::LookupByNameFailSafe(type, &found) ||
        !found.IsChildOf(BufferScheme::GetTypeId()) || !found.HasConstructor())
    {
        return false;
    }
    *tid = found;
    return true;
}

void
BufferScheme::Attach(SharedBuffer* buffer)
{
    NS_LOG_FUNCTION(this << buffer);
    NS_ABORT_MSG_IF(m_buffer && m_buffer != buffer,
                    "BufferScheme: already attached to another buffer");
    m_buffer = buffer;
    DoAttach();
}

void
BufferScheme::DoAttach()
{
}

void
BufferScheme::NotifyPortAdded(uint32_t port)
{
}

void
BufferScheme::NotifyEnqueue(uint32_t port, uint32_t queue, uint32_t bytes)
{
}

void
BufferScheme::NotifyDequeue(uint32_t port, uint32_t queue, uint32_t bytes)
{
}

double
BufferScheme::GetAlpha(uint32_t globalQueue) const
{
    return m_buffer->GetQueues().at(globalQueue).alpha;
}

void
BufferScheme::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_buffer = nullptr;
    Object::DoDispose();
}

} // namespace ns3
